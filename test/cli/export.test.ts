import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvReader } from '../../src/import/formats/csv.js';
import { ImportReport } from '../../src/import/report.js';
import { runCli } from '../support/cli.js';
import { makeRepo, MINIMAL_CONFIG } from '../repository/helpers.js';

const FILES = {
  'tmsync.yaml': MINIMAL_CONFIG,
  'cases/Auth/login.yaml': 'title: Log in\nsteps:\n  - use: sign-in\n  - action: Open the profile\n    expected: It shows\n',
  'cases/Auth/Empty/_folder.yaml': 'name: Empty\n',
  'step_groups/sign-in.yaml': 'title: Sign in\nsteps:\n  - action: Open /login\n    expected: The form shows\n',
};

describe('tmsync export', () => {
  it('writes the repository in the format asked, offline, and lists what the format could not hold', async () => {
    const dir = await makeRepo(FILES);
    const ok = await runCli(['export', 'csv', '--out', 'cases.csv'], { cwd: dir });
    expect(ok.code, ok.err).toBe(0);
    expect(ok.errLines[0]).toBe('Exported 1 test case in 2 folders as csv to cases.csv.');
    expect(ok.errLines[1]).toMatch(/^ {2}folded 1 step group: inlined: its steps written into the case's steps \(csv has no step groups to refer to\) \(e\.g\. Sign in in cases\/Auth\/login\.yaml\)$/);
    const project = csvReader.read(await readFile(join(dir, 'cases.csv'), 'utf8'), { file: 'cases.csv', report: new ImportReport() });
    expect(project.cases[0].steps).toEqual([
      { action: 'Open /login', expected: 'The form shows' },
      { action: 'Open the profile', expected: 'It shows' },
    ]);
    expect(project.folders).toEqual([['Auth', 'Empty']]);
  });

  it('prints its report under --json', async () => {
    const dir = await makeRepo(FILES);
    const run = await runCli(['export', 'xray-csv', '--out', 'x.csv', '--json'], { cwd: dir });
    expect(run.code, run.err).toBe(0);
    const doc = JSON.parse(run.out);
    expect(doc).toMatchObject({ format: 'xray-csv', file: join(dir, 'x.csv'), counts: { folders: 2, step_groups: 1, test_cases: 1 } });
    expect(doc.report.entries.map((e: { action: string; field: string }) => `${e.action} ${e.field}`)).toEqual(['folded step group', 'dropped folder']);
  });

  it('writes a case imported from the format’s tool back under that tool’s id (`source:` of the file)', async () => {
    const dir = await makeRepo({ ...FILES, 'cases/Auth/imported.yaml': 'id: SHOP-4\nsource: testrail:C9\ntitle: Imported\n' });
    const run = await runCli(['export', 'testrail-xml', '--out', 't.xml'], { cwd: dir });
    expect(run.code, run.err).toBe(0);
    expect(await readFile(join(dir, 't.xml'), 'utf8')).toMatch(/<id>C9<\/id>\n\s*<title>Imported<\/title>[\s\S]*?<references>SHOP-4<\/references>/);
  });

  it('exports nothing from a repository with problems, and names them', async () => {
    const dir = await makeRepo({ ...FILES, 'cases/Auth/broken.yaml': 'title: [unclosed\n' });
    const run = await runCli(['export', 'testrail-xml', '--out', 't.xml'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/cases\/Auth\/broken\.yaml:\d+:\d+ /);
    expect(run.err).toMatch(/1 problem in the tests repository: nothing exported/);
    await expect(readFile(join(dir, 't.xml'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a format it does not write, naming those it does', async () => {
    const dir = await makeRepo(FILES);
    const run = await runCli(['export', 'excel', '--out', 'x'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/testrail-xml, xray-csv, csv/);
  });
});
