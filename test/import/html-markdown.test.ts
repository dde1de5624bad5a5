import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../src/import/text/html-markdown.js';

describe('htmlToMarkdown', () => {
  it('turns paragraphs, emphasis, lists and links into Markdown', () => {
    expect(htmlToMarkdown('<p>Open <strong>Cart</strong> and <em>pay</em></p><ol><li>one</li><li>two</li></ol><p><a href="https://x.test/a.png">shot</a></p>')).toBe(
      'Open **Cart** and *pay*\n\n1.  one\n2.  two\n\n[shot](https://x.test/a.png)',
    );
  });

  it('keeps a line break as a newline and decodes entities of plain text', () => {
    expect(htmlToMarkdown('a<br/>b')).toBe('a\nb');
    expect(htmlToMarkdown('Fish &amp; chips &eacute;t&#233; &#x263A;&nbsp;')).toBe('Fish & chips \u00e9t\u00e9 \u263a');
    expect(htmlToMarkdown('1. first *not emphasis*\n   indented')).toBe('1. first *not emphasis*\n   indented');
    expect(htmlToMarkdown('1. a &lt; b\n  two')).toBe('1. a < b\n  two');
  });

  it('keeps what Markdown cannot say (a table, underline) as HTML instead of dropping it', () => {
    const md = htmlToMarkdown('<p>x</p><table><tr><td>a</td><td>b</td></tr></table><u>under</u>');
    expect(md).toContain('<table>');
    expect(md).toContain('<td>a</td>');
    expect(md).toContain('<u>under</u>');
  });

  it('gives an empty text for blank input', () => {
    expect(htmlToMarkdown('  \n')).toBe('');
  });
});
