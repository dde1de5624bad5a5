import { describe, expect, it } from 'vitest';
import { detectFormat, xmlRootName } from '../../src/results/load-reports.js';

describe('xmlRootName', () => {
  it('skips the declaration, comments, processing instructions and a doctype', () => {
    expect(xmlRootName('<?xml version="1.0"?>\r\n<!-- made by a runner -->\n<?xml-stylesheet href="a.xsl"?>\n<!DOCTYPE x>\n<testsuites name="a">')).toBe('testsuites');
    expect(xmlRootName('<ns:TestRun xmlns:ns="urn:x">')).toBe('TestRun');
  });

  it('is undefined when the head holds no element', () => {
    expect(xmlRootName('<?xml version="1.0"?>')).toBeUndefined();
    expect(xmlRootName('<!-- unfinished')).toBeUndefined();
  });
});

describe('detectFormat of XML', () => {
  it('reads an unknown root as JUnit, whose reader then names the root', () => {
    expect(detectFormat(Buffer.from('<?xml version="1.0"?>\n<report/>'), 'r.xml')).toBe('junit');
    expect(detectFormat(Buffer.from('\uFEFF<testsuite/>'), 'r')).toBe('junit');
  });
});
