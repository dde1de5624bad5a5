import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { EXPORT_FORMATS, exportFormat, exportRepository } from '../../src/export/export.js';
import { csvReader } from '../../src/import/formats/csv.js';
import { ImportReport } from '../../src/import/report.js';
import { readCsv } from '../../src/import/csv-table.js';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { repository } from './support.js';

const SHOP = repository({
  folders: [['Checkout', 'Empty']],
  groups: [{ key: 'login', title: 'Log in', id: 'SHOP-SG-1', steps: [{ action: 'Open /login', expected: 'The form shows' }] }],
  cases: [
    { folder: [], title: 'Text case', fields: { template: 'TCD', stepsText: '1. a\n2. b', expectedResults: 'ok' } },
    {
      folder: ['Checkout', 'Payments'],
      title: 'Pay, "quickly"',
      id: 'SHOP-1',
      fields: {
        description: 'Line one\nline two',
        priority: 'High',
        type: 'Functional',
        status: 'Ready',
        automationType: 'Automated',
        owner: 'ana@example.com',
        reviewer: 'ben@example.com',
        labels: ['smoke', 'payments'],
        steps: [
          { kind: 'use', use: 'login' },
          { kind: 'step', action: 'Press <Pay> & wait', expected: 'Paid | done' },
        ],
      },
    },
  ],
});

function run(format: (typeof EXPORT_FORMATS)[number]['name'], repo = SHOP) {
  const report = new ImportReport();
  return { text: exportRepository(format, repo, { report }), report };
}

describe('export csv', () => {
  it('writes one row per step under the reader’s headers, the case’s fields on its first row, groups inlined, an empty folder as a row', () => {
    const { text, report } = run('csv');
    expect(text.split('\r\n')).toEqual([
      'ID,Folder,Title,Template,Description,Preconditions,Step #,Steps,Expected Result,Priority,Type,Status,Automation Type,Owner,Reviewer,Labels',
      ',,Text case,TCD,,,,"1. a\n2. b",ok,,,,,,,',
      'SHOP-1,Checkout/Payments,"Pay, ""quickly""",STEPS,"Line one\nline two",,1,Open /login,The form shows,High,Functional,Ready,Automated,ana@example.com,ben@example.com,"smoke, payments"',
      ',,,,,,2,Press <Pay> & wait,Paid | done,,,,,,,',
      ',Checkout/Empty,,,,,,,,,,,,,,',
      '',
    ]);
    expect(report.entries).toEqual([
      expect.objectContaining({ action: 'folded', field: 'step group', count: 1, examples: [{ value: 'Log in', at: { file: 'cases/Checkout/Payments/case-2.yaml', line: 2 } }] }),
    ]);
  });

  it('reads back through `tmsync import csv`', () => {
    const report = new ImportReport();
    const project = csvReader.read(run('csv').text, { file: 'out.csv', report });
    expect(project.folders).toEqual([['Checkout', 'Empty']]);
    expect(project.cases.map((c) => [c.sourceId, c.folder, c.title])).toEqual([
      ['Text case', [], 'Text case'],
      ['SHOP-1', ['Checkout', 'Payments'], 'Pay, "quickly"'],
    ]);
    expect(project.cases[0]).toMatchObject({ stepsText: '1. a\n2. b', expectedResults: 'ok' });
  });

  it('writes a folder path with ` > ` when a name holds a `/`, and notes a label holding a separator', () => {
    const { text, report } = run('csv', repository({ cases: [{ folder: ['A/B', 'C'], title: 'T', fields: { labels: ['x,y'] } }] }));
    expect(text).toContain(',A/B > C,T,');
    expect(report.notes).toEqual([expect.stringMatching(/the label "x,y" holds a comma or semicolon/)]);
  });

  it('names a `use:` of a step group only the service holds as a step, and reports it', () => {
    const repo = repository({ cases: [{ folder: ['A'], title: 'T', fields: { steps: [{ kind: 'use', use: 'SHOP-SG-9' }] } }] });
    const { text, report } = run('csv', repo);
    expect(text).toContain('Use the step group SHOP-SG-9');
    expect(report.entries[0]).toMatchObject({ action: 'folded', field: 'step group', rule: expect.stringMatching(/not in the repository/) });
  });
});

describe('export testrail-xml', () => {
  it('writes sections from folders (empty ones too), steps separated, the text template, custom fields, and escapes markup', () => {
    const { text, report } = run('testrail-xml');
    expect(text).toContain('<suite>\n  <name>Master</name>\n  <sections>\n    <section>\n      <name>Checkout</name>\n      <sections>');
    expect(text).toContain('<name>Empty</name>');
    expect(text).toContain(
      [
        '<steps_separated>',
        '                  <step>',
        '                    <index>1</index>',
        '                    <content>Open /login</content>',
        '                    <expected>The form shows</expected>',
        '                  </step>',
        '                  <step>',
        '                    <index>2</index>',
        '                    <content>Press &lt;Pay&gt; &amp; wait</content>',
      ].join('\n'),
    );
    expect(text).toMatch(
      /<template>Test Case \(Steps\)<\/template>\n\s*<type>Functional<\/type>\n\s*<priority>High<\/priority>\n\s*<status>Ready<\/status>\n\s*<assignedto>ana@example.com<\/assignedto>\n\s*<references>SHOP-1<\/references>/,
    );
    expect(text).toMatch(/<automation_type>Automated<\/automation_type>\n\s*<reviewer>ben@example.com<\/reviewer>\n\s*<labels>smoke, payments<\/labels>/);
    expect(text).toMatch(/<name>Test Cases<\/name>\n\s*<cases>\n\s*<case>\n\s*<title>Text case<\/title>\n\s*<template>Test Case \(Text\)<\/template>\n\s*<custom>\n\s*<steps>1. a\n2. b<\/steps>\n\s*<expected>ok<\/expected>/);
    expect(report.notes).toEqual([expect.stringMatching(/the 1 case\(s\) outside any folder are in a section "Test Cases"/)]);
    expect(report.entries.map((e) => e.field)).toEqual(['step group']);
  });

  it('replaces characters XML 1.0 cannot hold and reports them', () => {
    const { text, report } = run('testrail-xml', repository({ cases: [{ folder: ['A'], title: 'bell\u0007' }] }));
    expect(text).toContain('<title>bell\uFFFD</title>');
    expect(report.entries[0]).toMatchObject({ action: 'dropped', field: 'control character' });
  });
});

describe('export xray-csv', () => {
  it('writes the Test Case Importer’s rows: TCID on every row, the fields on the first, repeated Labels columns, the repository path', () => {
    const { text, report } = run('xray-csv');
    const table = readCsv(text, 'x.csv');
    expect(table.headers).toEqual([
      'TCID', 'Summary', 'Description', 'Test Type', 'Priority', 'Assignee', 'Test Repository Path', 'Action', 'Data', 'Expected Result',
      'Precondition', 'Case Type', 'Status', 'Automation Type', 'Reviewer', 'Labels', 'Labels',
    ]);
    expect(table.rows.map((r) => r.values)).toEqual([
      ['1', 'Text case', '', 'Manual', '', '', '', '1. a\n2. b', '', 'ok', '', '', '', '', '', '', ''],
      ['SHOP-1', 'Pay, "quickly"', 'Line one\nline two', 'Manual', 'High', 'ana@example.com', 'Checkout/Payments', 'Open /login', '', 'The form shows', '', 'Functional', 'Ready', 'Automated', 'ben@example.com', 'smoke', 'payments'],
      ['SHOP-1', '', '', '', '', '', '', 'Press <Pay> & wait', '', 'Paid | done', '', '', '', '', '', '', ''],
    ]);
    expect(report.entries.map((e) => [e.action, e.field])).toEqual([
      ['folded', 'step group'],
      ['dropped', 'folder'],
    ]);
  });
});

describe('the identity each case carries out', () => {
  const repo = repository({
    cases: [
      { folder: ['A'], title: 'From TestRail', id: 'SHOP-3', source: 'testrail:C7' },
      { folder: ['A'], title: 'From this CSV', id: 'SHOP-4', source: 'csv:X-1' },
      { folder: ['A'], title: 'From Xray, not applied yet', source: 'xray:CALC-7' },
      { folder: ['A'], title: 'Only the service id', id: 'SHOP-5' },
    ],
  });

  it('is the id in the format’s own tool when the case came from it, else the service id, else the source', () => {
    const csv = readCsv(run('csv', repo).text, 'x.csv').rows.map((r) => r.values[0]);
    expect(csv).toEqual(['SHOP-3', 'X-1', 'xray:CALC-7', 'SHOP-5']);
    const xray = readCsv(run('xray-csv', repo).text, 'x.csv').rows.map((r) => r.values[0]);
    expect(xray).toEqual(['SHOP-3', 'SHOP-4', 'CALC-7', 'SHOP-5']);
  });

  it('testrail-xml: a case from TestRail goes back under its TestRail id, the service id in references', () => {
    const xml = run('testrail-xml', repo).text;
    expect(xml).toMatch(/<case>\n\s*<id>C7<\/id>\n\s*<title>From TestRail<\/title>[\s\S]*?<references>SHOP-3<\/references>/);
    expect(xml).toMatch(/<title>From this CSV<\/title>[\s\S]*?<references>SHOP-4<\/references>/);
    expect(xml).toMatch(/<title>From Xray, not applied yet<\/title>[\s\S]*?<references>xray:CALC-7<\/references>/);
    expect(xml.match(/<id>/g)).toHaveLength(1);
  });
});

describe('exportRepository', () => {
  it('lists its formats and refuses another, naming them', () => {
    expect(EXPORT_FORMATS.map((f) => f.name)).toEqual(['testrail-xml', 'xray-csv', 'csv']);
    let error: unknown;
    try {
      exportFormat('excel');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TmsyncError);
    expect((error as TmsyncError).code).toBe('invalid_export');
    expect((error as TmsyncError).hint).toBe('the formats are testrail-xml, xray-csv, csv');
  });

  it('exports the loaded example repository, every case and its inlined step group', async () => {
    const { config, root } = await loadConfig(fileURLToPath(new URL('../../examples/tmsync.yaml', import.meta.url)));
    const { state } = await loadRepository(root, config);
    const report = new ImportReport();
    const project = csvReader.read(exportRepository('csv', state), { file: 'examples.csv', report });
    expect(project.cases.map((c) => c.title).sort()).toEqual(state.cases.map((c) => c.title).sort());
    const withGroup = state.cases.find((c) => c.fields.steps?.some((s) => s.kind === 'use'));
    const group = state.stepGroups[0];
    expect(project.cases.find((c) => c.title === withGroup?.title)?.steps?.[0]).toEqual({ action: group.steps[0].action, expected: group.steps[0].expected });
  });
});
