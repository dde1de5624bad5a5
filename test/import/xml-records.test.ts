import { describe, expect, it } from 'vitest';
import { childText, readXmlRecords, type XmlElement } from '../../src/import/xml-records.js';
import { importError as errorOf } from '../support/import-read.js';

function records(xml: string): { name: string; path: string[]; line: number }[] {
  const out: { name: string; path: string[]; line: number }[] = [];
  readXmlRecords(xml, 'x.xml', {
    records: new Set(['case']),
    onRecord(element: XmlElement, ancestors) {
      out.push({ name: childText(element, 'title'), path: ancestors.filter((a) => a.name === 'section').map((a) => childText(a, 'name')), line: element.line });
    },
  });
  return out;
}


describe('readXmlRecords', () => {
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<suite><name>S</name>',
    '  <section><name>Outer</name><cases>',
    '    <case><title>one &amp; <![CDATA[<b>two</b>]]></title></case>',
    '  </cases><sections><section><name>Inner</name><cases>',
    '    <case><title>three</title></case>',
    '  </cases></section></sections></section>',
    '</suite>',
  ].join('\r\n');

  it('hands each record with the sections around it (read before the record) and its line, CRLF and CDATA kept', () => {
    expect(records(xml)).toEqual([
      { name: 'one & <b>two</b>', path: ['Outer'], line: 4 },
      { name: 'three', path: ['Outer', 'Inner'], line: 6 },
    ]);
  });

  it('names the line and the open element of a truncated file', () => {
    const cut = xml.slice(0, xml.indexOf('three'));
    const error = errorOf(() => records(cut));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toMatch(/^x\.xml:6: the file ends inside <title> opened at line 6: it is truncated/);
  });

  it('names the line of malformed XML', () => {
    const error = errorOf(() => records('<suite>\n<case><title>a</titel></case></suite>'));
    expect(error.message).toMatch(/^x\.xml:2: the XML is malformed/);
  });

  it('lower-cases element and attribute names, decodes XML entities (and &nbsp;) and keeps an unknown one, and one of a character XML forbids, as written', () => {
    const seen: XmlElement[] = [];
    readXmlRecords('<Suite>\n\n<Case ID="C&#49;" Kind=\'a &amp; b\'><Title>x&nbsp;&lt;y&#x3E;&zwj;&#0;&#xD800;</Title></Case></Suite>', 'x.xml', {
      records: new Set(['case']),
      onRecord: (element) => void seen.push(element),
    });
    expect(seen.map((e) => ({ name: e.name, attributes: e.attributes, line: e.line, title: childText(e, 'title') }))).toEqual([
      { name: 'case', attributes: { id: 'C1', kind: 'a & b' }, line: 3, title: 'x\u00a0<y>&zwj;&#0;&#xD800;' },
    ]);
  });

  it('names the line of an attribute without quotes and of a second root element', () => {
    expect(errorOf(() => records('<suite>\n\n<case id=1></case></suite>')).message).toMatch(/^x\.xml:3: the XML is malformed: the value of id in <case> is not quoted/);
    expect(errorOf(() => records('<suite/>\n<suite/>')).message).toMatch(/^x\.xml:2: the XML is malformed: a second root element <suite>/);
  });

  it('gives no root for an empty file', () => {
    expect(readXmlRecords('', 'x.xml', { records: new Set(), onRecord: () => undefined })).toBeUndefined();
  });
});
