import { describe, expect, it } from 'vitest';
import { buildImportFiles, type ImportFile, type ImportFilesOptions } from '../../src/import/import-files.js';
import type { ImportedProject } from '../../src/import/imported.js';
import { ImportReport } from '../../src/import/report.js';
import type { ScannedRepository } from '../../src/import/scan-repository.js';
import { yamlFormat } from '../../src/repository/yaml-format.js';

const at = { file: 'export.xml', line: 3 };

function project(): ImportedProject {
  return {
    folders: [['Shop', 'Empty']],
    stepGroups: [{ sourceId: 'S1', title: 'Sign in', steps: [{ action: 'Open /login', data: 'user: ann' }], at }],
    cases: [
      {
        sourceId: 'C1',
        folder: ['Shop', 'Cart'],
        title: 'Add to cart',
        description: 'Adds one item.',
        steps: [{ use: 'S1' }, { action: 'Click Add', expected: 'Cart shows 1', data: 'sku 42' }],
        lookups: { priority: 'P1', type: 'Functional', status: 'Ready' },
        labels: ['smoke', 'smoke', ' '],
        fields: [{ name: 'Component', value: 'Cart' }, { name: 'Empty', value: ' ' }],
        at,
      },
      { sourceId: 'C2', folder: ['Shop', 'Cart'], title: 'Add to cart', stepsText: 'do it', expectedResults: 'done', at },
      { sourceId: 'C3', folder: ['A/B: C'], title: 'Odd folder', at },
    ],
  };
}

function options(report = new ImportReport()): ImportFilesOptions {
  return { tool: 'testrail', casesDir: 'cases', stepGroupsDir: 'step_groups', under: [], values: { priority: { P1: 'High' }, status: { Ready: null } }, report };
}

const empty = (): ScannedRepository => ({ bySource: new Map(), names: new Map(), folderNames: new Map() });
const created = (files: ImportFile[], path: string) => {
  const f = files.find((x) => x.path === path);
  if (f?.action !== 'create') throw new Error(`${path} is not created: ${files.map((x) => x.path).join(', ')}`);
  return yamlFormat.readDocument(f.content)!;
};

describe('buildImportFiles', () => {
  it('writes step groups, cases and folder settings with folds, mapped values and the source', () => {
    const report = new ImportReport();
    const result = buildImportFiles(project(), empty(), options(report));
    expect(result.files.map((f) => `${f.action} ${f.path}`)).toEqual([
      'create step_groups/sign-in.yaml',
      'create cases/Shop/Cart/add-to-cart.yaml',
      'create cases/Shop/Cart/add-to-cart-2.yaml',
      'create cases/A-B-C/_folder.yaml',
      'create cases/A-B-C/odd-folder.yaml',
      'create cases/Shop/Empty/_folder.yaml',
    ]);
    expect(created(result.files, 'cases/Shop/Empty/_folder.yaml')).toEqual({ name: 'Empty' });
    expect(created(result.files, 'step_groups/sign-in.yaml')).toEqual({ title: 'Sign in', steps: [{ action: 'Open /login\n\nData: user: ann' }], source: 'testrail:S1' });
    expect(created(result.files, 'cases/Shop/Cart/add-to-cart.yaml')).toEqual({
      title: 'Add to cart',
      description: 'Adds one item.\n\n**Fields**\n\n- Component: Cart',
      status: 'Ready',
      priority: 'High',
      labels: ['smoke'],
      steps: [{ use: 'sign-in' }, { action: 'Click Add\n\nData: sku 42', expected: 'Cart shows 1' }],
      source: 'testrail:C1',
    });
    expect(created(result.files, 'cases/Shop/Cart/add-to-cart-2.yaml')).toMatchObject({ steps: 'do it', expected_results: 'done', source: 'testrail:C2' });
    expect(created(result.files, 'cases/A-B-C/_folder.yaml')).toEqual({ name: 'A/B: C' });
    // status Ready is named by the map without a target: written, and listed for validate
    expect(result.unmapped).toEqual([{ path: 'cases/Shop/Cart/add-to-cart.yaml', field: 'status', value: 'Ready' }]);
    expect(report.entries.map((e) => `${e.action} ${e.field} ${e.count}`)).toEqual(['folded step data 2', 'folded Component 1', 'dropped type 1']);
    expect([...result.seen.get('type')!]).toEqual(['Functional']);
  });

  it('gives the same files for the same export, whoever imports it', () => {
    expect(buildImportFiles(project(), empty(), options()).files).toEqual(buildImportFiles(project(), empty(), options()).files);
  });

  it('on a re-import updates only changed keys of the files found by source, moves a case whose folder changed, and lists vanished ones', () => {
    const first = buildImportFiles(project(), empty(), options());
    const scanned = empty();
    for (const f of first.files) {
      if (f.action !== 'create' || f.kind === 'folder') continue;
      const document: Record<string, unknown> = { id: f.kind === 'case' ? 'SHOP-1' : 'SHOP-SG-1', ...yamlFormat.readDocument(f.content)! };
      scanned.bySource.set(document.source as string, { path: f.path, kind: f.kind, document });
      const dir = f.path.slice(0, f.path.lastIndexOf('/'));
      scanned.names.set(dir, [...(scanned.names.get(dir) ?? []), f.path.slice(f.path.lastIndexOf('/') + 1)]);
    }
    scanned.names.set('cases', ['Shop', 'A-B-C']);
    scanned.names.set('cases/Shop', ['Cart', 'Empty']);
    scanned.names.set('cases/Shop/Empty', ['_folder.yaml']);
    scanned.names.set('cases/A-B-C', ['_folder.yaml', 'odd-folder.yaml']);
    scanned.folderNames.set('cases/A-B-C', 'A/B: C');
    scanned.bySource.set('testrail:C9', { path: 'cases/Old/gone.yaml', kind: 'case', document: { title: 'Gone', source: 'testrail:C9' } });
    scanned.bySource.set('xray:X-1', { path: 'cases/Old/other-tool.yaml', kind: 'case', document: { title: 'X', source: 'xray:X-1' } });

    const next = project();
    next.cases[0].title = 'Add one item to the cart';
    next.cases[1].folder = ['Shop', 'Basket'];
    const result = buildImportFiles(next, scanned, options());
    expect(result.files.map((f) => (f.action === 'update' ? `update ${f.path} ${Object.keys(f.fields).join(',')}${f.renameFrom ? ` from ${f.renameFrom}` : ''}` : `create ${f.path}`))).toEqual([
      'update cases/Shop/Cart/add-to-cart.yaml title',
      'update cases/Shop/Basket/add-to-cart.yaml id,title,steps,expected_results,source from cases/Shop/Cart/add-to-cart-2.yaml',
    ]);
    const moved = result.files[1];
    expect(moved.action === 'update' && moved.fields.id).toBe('SHOP-1');
    expect(result.unchanged).toBe(2);
    expect(result.vanished).toEqual([{ path: 'cases/Old/gone.yaml', source: 'testrail:C9' }]);
  });

  it('puts everything under --folder, and keeps a value the export leaves out as the file has it', () => {
    const result = buildImportFiles(project(), empty(), { ...options(), under: ['Imported', 'TestRail'] });
    expect(result.files.filter((f) => f.kind === 'case').map((f) => f.path)).toEqual([
      'cases/Imported/TestRail/Shop/Cart/add-to-cart.yaml',
      'cases/Imported/TestRail/Shop/Cart/add-to-cart-2.yaml',
      'cases/Imported/TestRail/A-B-C/odd-folder.yaml',
    ]);
  });

  it('writes a step group that several files of one export hold once', () => {
    const p = project();
    p.stepGroups.push({ ...p.stepGroups[0] });
    const result = buildImportFiles(p, empty(), options());
    expect(result.files.filter((f) => f.kind === 'step_group').map((f) => f.path)).toEqual(['step_groups/sign-in.yaml']);
  });

  it('reports a use of shared steps the export does not hold, and a duplicate source id', () => {
    const p = project();
    p.cases[0].steps = [{ use: 'S404' }];
    p.cases[2].sourceId = 'C1';
    const report = new ImportReport();
    const result = buildImportFiles(p, empty(), options(report));
    expect(created(result.files, 'cases/Shop/Cart/add-to-cart.yaml').steps).toEqual([{ action: '(shared steps S404, not in the export)' }]);
    expect(report.entries.filter((e) => e.action === 'dropped').map((e) => e.field)).toEqual(['shared step', 'type', 'duplicate case']);
  });
});
