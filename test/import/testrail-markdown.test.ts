import { describe, expect, it } from 'vitest';
import { ImportReport } from '../../src/import/report.js';
import { testrailMarkdown } from '../../src/import/text/testrail-markdown.js';

describe('testrailMarkdown', () => {
  it("turns TestRail's table syntax into a Markdown table, with the header's alignment and a blank line around it", () => {
    const text = 'Prices:\r\n|||:Item|:Price:|Tax:|Note\r\n|| Espresso | 2,10 € | 7 %\r\n|| Tea | 1,80 € | 7 % | hot\r\nAfter';
    expect(testrailMarkdown(text)).toBe(
      [
        'Prices:',
        '',
        '| Item | Price | Tax | Note |',
        '| :--- | :---: | ---: | --- |',
        '| Espresso | 2,10 € | 7 % |  |',
        '| Tea | 1,80 € | 7 % | hot |',
        '',
        'After',
      ].join('\n'),
    );
  });

  it('keeps attachment links and lists each in the report with where it was', () => {
    const report = new ImportReport();
    const text = 'See ![](index.php?/attachments/get/123) and [log](https://tr.example.com/index.php?/attachments/get/9f1c-77)';
    expect(testrailMarkdown(text, report, { file: 'a.xml', line: 4 })).toBe(text);
    expect(report.attachments).toEqual({
      count: 2,
      examples: [
        { value: 'index.php?/attachments/get/123', at: { file: 'a.xml', line: 4 } },
        { value: 'https://tr.example.com/index.php?/attachments/get/9f1c-77', at: { file: 'a.xml', line: 4 } },
      ],
    });
  });

  it('keeps Markdown and markup it does not know as written, and gives blank text as empty', () => {
    expect(testrailMarkdown('**bold** <u>u</u> {code}x{code}\n\n    indented')).toBe('**bold** <u>u</u> {code}x{code}\n\n    indented');
    expect(testrailMarkdown(' \r\n ')).toBe('');
  });
});
