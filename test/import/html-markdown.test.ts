import { describe, expect, it } from 'vitest';
import { htmlImages, htmlToMarkdown } from '../../src/import/text/html-markdown.js';

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

  it('keeps what Markdown cannot say (a merged-cell table, underline, a colour) as HTML instead of dropping it', () => {
    const md = htmlToMarkdown('<p>x</p><table><tr><td colspan="2">a</td></tr><tr><td>b</td><td><ul><li>c</li></ul></td></tr></table><u>under</u> <span style="color: #ff0000">red</span>');
    expect(md).toContain('<table>');
    expect(md).toContain('<td colspan="2">a</td>');
    expect(md).toContain('<u>under</u>');
    expect(md).toContain('<span style="color: #ff0000">red</span>');
  });

  it('turns a plain table into a pipe table, paragraphs inside cells as <br>, pipes escaped', () => {
    const html = '<table border="1" style="width:500px"><tbody><tr><th>Field</th><th>Value</th></tr><tr><td><p>user</p></td><td><p>a|b</p><p><strong>c</strong></p></td></tr><tr><td>short row</td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe('| Field | Value |\n| --- | --- |\n| user | a\\|b<br>**c** |\n| short row |  |');
  });

  it('does not leave indented blank lines between list items that hold paragraphs', () => {
    expect(htmlToMarkdown('<ol><li><p>one</p></li><li>two</li></ol>')).toBe('1.  one\n\n2.  two');
  });

  it('lists the images an HTML text embeds (attachments), entities decoded', () => {
    expect(htmlImages('<p>x <img alt="a" src="https://x.test/a.png?a=1&amp;b=2"> <img src=\'/att/2.png\'/></p>')).toEqual(['https://x.test/a.png?a=1&b=2', '/att/2.png']);
    expect(htmlImages('no images')).toEqual([]);
  });

  it('reads CDATA markers left in the text as the text they wrap, and leaves style sheets out', () => {
    expect(htmlToMarkdown('<![CDATA[<p>Open <b>Cart</b></p>]]>')).toBe('Open **Cart**');
    expect(htmlToMarkdown('<p>a</p><![CDATA[b & c]]>')).toBe('a\n\nb & c');
    expect(htmlToMarkdown('<![CDATA[plain]]>')).toBe('plain');
    expect(htmlToMarkdown('<style>p { color: red }</style><p>x</p>')).toBe('x');
  });

  it('writes paragraphs, line breaks and plain emphasis without the HTML parser exactly as turndown does', () => {
    const pieces = ['<strong>bold</strong>', '<b>1. b</b>', '<em>x_y</em>', '<i>it</i>', '<em> lead</em>', '<b>trail </b>', '<strong>&nbsp;n</strong>', '<em>&amp;</em>', '<EM>up</EM>', '<b></b>', '<p>', '</p>', '<P style="margin:0">', "<p title='x>y'>", '<p\nclass=a>', '<br>', '<br/>', '<br />', 'a', 'b c', ' ', '\n', '\t', '  x  ', '*', '_', '1. ', '- ', '# h', '[l]', '`c`', '+ ', '> q', '=', '\\', '~~~'];
    const entities = ['&amp;', '&lt;p&gt;', '&nbsp;', '&oacute;', '&#233;', '&#x263A;', '&bdquo;', '&hearts;', '&nbsp', 'AT&T', '&#0;'];
    const all = [...pieces, ...entities];
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const samples = ['<p>a<br><br>b</p>', '<p><br>a</p><p>b</p>', '<p>a<br></p><p>b</p>', '<p><i>it</i><p><br>1. x', '<p>1. </p>', '<p>+ <br>x</p>', '<p>a <b>b</b> c</p>'];
    for (let k = 0; k < 5000; k++) {
      let html = '<p>';
      for (let i = next(8); i >= 0; i--) html += all[next(all.length)];
      samples.push(html);
    }
    // an element outside paragraphs, breaks and emphasis sends the same text through turndown
    const differ = samples.filter((html) => htmlToMarkdown(html) !== htmlToMarkdown(`${html}<span></span>`));
    expect(differ).toEqual([]);
    expect(htmlToMarkdown('<p>&lt;p&gt; is text</p><p>&hearts; &amp; 1. <br>- x</p>')).toBe('<p> is text\n\n\u2665 & 1.\n\\- x');
    expect(htmlToMarkdown('<p title="a>b" class=x>text</p>')).toBe('text');
  });

  it('gives an empty text for blank input', () => {
    expect(htmlToMarkdown('  \n')).toBe('');
  });
});
