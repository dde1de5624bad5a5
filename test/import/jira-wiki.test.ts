import { describe, expect, it } from 'vitest';
import { jiraToMarkdown, jiraWikiToMarkdown } from '../../src/import/text/jira-wiki.js';

describe('jiraWikiToMarkdown', () => {
  it('turns headings and text effects into Markdown, keeping underline, sup, sub and citations as HTML', () => {
    expect(jiraToMarkdown('h1. Title\nh3. Part *one*')).toBe('# Title\n### Part **one**');
    expect(jiraToMarkdown('*bold* _italic_ -strike- +under+ {{a_b*c}} x^2^ H~2~O ??Someone??')).toBe(
      '**bold** *italic* ~~strike~~ <u>under</u> `a_b*c` x<sup>2</sup> H<sub>2</sub>O <cite>Someone</cite>',
    );
  });

  it('leaves markers inside words and spaced markers alone', () => {
    expect(jiraToMarkdown('snake_case_name, 2020-01-01, a - b - c, 2 * 3 * 4, C++ and re-run-now')).toBe('snake_case_name, 2020-01-01, a - b - c, 2 * 3 * 4, C++ and re-run-now');
  });

  it('nests bullet and numbered lists, mixed, and keeps a line after a list apart from it', () => {
    expect(jiraToMarkdown('* one\n** two\n*# three\n*# four\n* five\nafter')).toBe('- one\n  - two\n  1. three\n  2. four\n- five\n\nafter');
    expect(jiraToMarkdown('# a\n# b\n## c\n# d\n- dash')).toBe('1. a\n2. b\n   1. c\n3. d\n- dash');
  });

  it('makes tables with a header row, and gives a headless table an empty one', () => {
    expect(jiraToMarkdown('||Field||Value||\n|Name|[doc|https://x.test/a|tip]|\n|Pipe|a \\| b|')).toBe(
      '| Field | Value |\n| --- | --- |\n| Name | [doc](https://x.test/a) |\n| Pipe | a \\| b |',
    );
    expect(jiraToMarkdown('|a|b|\n|c|')).toBe('|  |  |\n| --- | --- |\n| a | b |\n| c |  |');
    expect(jiraToMarkdown('|multi\nline|x|')).toBe('|  |  |\n| --- | --- |\n| multi<br>line | x |');
    expect(jiraToMarkdown('||h||\n||side|cell|')).toBe('| h |  |\n| --- | --- |\n| **side** | cell |');
    expect(jiraToMarkdown('|{{a|b}}|x|')).toBe('|  |  |\n| --- | --- |\n| `a\\|b` | x |');
  });

  it('fences {code} and {noformat} blocks with their text untouched, and reads on after them', () => {
    expect(jiraToMarkdown('{code:java}\nint x = *y*;\n\n\n  _z_\n{code}\nafter *b*')).toBe('```java\nint x = *y*;\n\n\n  _z_\n```\nafter **b**');
    expect(jiraToMarkdown('{code:title=A.xml|language=xml}<a/>{code} tail')).toBe('```xml\n<a/>\n```\n tail');
    expect(jiraToMarkdown('{noformat}raw _x_{noformat}')).toBe('```\nraw _x_\n```');
    expect(jiraToMarkdown('{code}\nhas ``` inside\n{code}')).toBe('~~~~\nhas ``` inside\n~~~~');
    // never closed (a truncated text): the rest is code, nothing lost
    expect(jiraToMarkdown('{code}\na\nb')).toBe('```\na\nb\n```');
  });

  it('turns links, mentions, anchors, attachments and images into Markdown and lists the attachments', () => {
    const r = jiraWikiToMarkdown('[Docs|https://docs.test/a b] [https://x.test] [mailto:a@x.test] [~jdoe] [#top] [^spec.pdf] [Spec|^spec v2.pdf] !shot.png|thumbnail! !https://x.test/i.png! [CALC-1]');
    expect(r.markdown).toBe(
      '[Docs](https://docs.test/a%20b) <https://x.test> <mailto:a@x.test> @jdoe [#top](#top) [spec.pdf](spec.pdf) [Spec](spec%20v2.pdf) ![shot.png](shot.png) ![i.png](https://x.test/i.png) [CALC-1]',
    );
    expect(r.attachments).toEqual(['spec.pdf', 'spec v2.pdf', 'shot.png']);
  });

  it('does not take exclamation marks of a sentence for an image', () => {
    expect(jiraToMarkdown('Hello! Wow!great!')).toBe('Hello! Wow!great!');
  });

  it('unwraps {color} keeping the text and naming the colour; keeps unknown macros as written', () => {
    const r = jiraWikiToMarkdown('{color:red}*must* fail{color} {status:colour=Green|title=ok} {anchor:x}');
    expect(r.markdown).toBe('**must** fail {status:colour=Green|title=ok} {anchor:x}');
    expect(r.colours).toEqual(['red']);
  });

  it('quotes {quote}, bq. and {panel} (its title bold), and draws a rule for ----', () => {
    expect(jiraToMarkdown('{quote}\nquoted *x*\n{quote}\nbq. short\n----')).toBe('> quoted **x**\n> short\n---');
    expect(jiraToMarkdown('{panel:title=Note|borderStyle=dashed}\ninside\n{panel}')).toBe('> **Note**\n>\n> inside');
  });

  it('reads escapes and forced line breaks, CRLF and blank input', () => {
    expect(jiraToMarkdown('\\*not bold\\* a\\\\b \\{x\\}')).toBe('\\*not bold\\* a\nb {x}');
    expect(jiraToMarkdown('line one\r\n*two*\r\n')).toBe('line one\n**two**');
    expect(jiraToMarkdown('  \n')).toBe('');
  });

  it('keeps non-ASCII text as it is', () => {
    expect(jiraToMarkdown('*Größe* – _naïve_ café €')).toBe('**Größe** – *naïve* café €');
  });
});
