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

describe('detectFormat of the .NET reports', () => {
  it('tells TRX, NUnit 3 and 2, and xUnit.net by their root element, with a namespace or a byte order mark', () => {
    expect(detectFormat(Buffer.from('<?xml version="1.0"?>\n<TestRun id="1" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">'), 'r.xml')).toBe('trx');
    expect(detectFormat(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<TestRun>', 'utf16le')]), 'r.trx')).toBe('trx');
    expect(detectFormat(Buffer.from('\uFEFF<test-run id="0">'), 'TestResult.xml')).toBe('nunit');
    expect(detectFormat(Buffer.from('<!--This file represents the results of running a test suite-->\n<test-results name="a">'), 'TestResult.xml')).toBe('nunit');
    expect(detectFormat(Buffer.from('<assemblies timestamp="x">'), 'x.xml')).toBe('xunit');
    expect(detectFormat(Buffer.from('<assembly name="a.dll">'), 'x.xml')).toBe('xunit');
  });

  it('reads an empty .trx file as TRX, whose reader says it is empty', () => {
    expect(detectFormat(Buffer.alloc(0), 'TestResults/run.trx')).toBe('trx');
  });
});
