import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileWriteBack, readWrittenId } from '../../src/apply/write-back.js';
import type { Problem } from '../../src/errors.js';
import type { DesiredCase } from '../../src/model.js';
import { buildPlan } from '../../src/plan/index.js';
import { pullIntoRepository } from '../../src/pull/index.js';
import { loadConfig, loadRepository, registerFormat, type RepositoryFormat } from '../../src/repository/index.js';
import { actualState, remoteCase, remoteFolder } from '../plan/builders.js';
import { makeRepo } from './helpers.js';

/**
 * A second file format, registered through the format interface only: a test case as a JSON object
 * (`*.tc.json`). Nothing in the loader, the plan or the write-back knows it; if it loads, plans and
 * gets its id written back, the seam holds (issue 25: Gherkin is the next such module).
 */
const jsonCases: RepositoryFormat = {
  name: 'json-test',
  extensions: ['.tc.json'],
  parseCase(file, text) {
    const problem = (message: string): { problems: Problem[] } => ({ problems: [{ file, line: 1, col: 1, code: 'invalid_format', message }] });
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      return problem(`not JSON: ${(err as Error).message}`);
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) return problem('a test case is a JSON object');
    const o = data as Record<string, unknown>;
    if (typeof o.title !== 'string' || o.title === '') return problem('`title` is missing');
    const item: DesiredCase = {
      file,
      folderPath: [],
      ...(typeof o.id === 'string' ? { id: o.id } : {}),
      title: o.title,
      fields: typeof o.description === 'string' ? { description: o.description } : {},
      lines: { title: 1 },
    };
    return { parsed: { item, titlePos: { line: 1, col: 1 } }, problems: [] };
  },
  render: (_kind, document) => `${JSON.stringify(Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined)), null, 2)}\n`,
  readDocument(text) {
    try {
      const data = JSON.parse(text) as unknown;
      return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    } catch {
      return undefined;
    }
  },
  editDocument(text, fields) {
    const data = (text === undefined ? {} : JSON.parse(text)) as Record<string, unknown>;
    // a new key first (`id` on top), the others where they are
    const added = Object.fromEntries(Object.entries(fields).filter(([k, v]) => v !== undefined && !(k in data)));
    const out: Record<string, unknown> = { ...added };
    for (const [k, v] of Object.entries(data)) if (!(k in fields)) out[k] = v;
    for (const [k, v] of Object.entries(fields)) if (v !== undefined && k in data) out[k] = v;
    return `${JSON.stringify(out, null, 2)}\n`;
  },
};

let unregister: (() => void) | undefined;
afterEach(() => {
  unregister?.();
  unregister = undefined;
});

const FILES = {
  'tmsync.yaml': 'project: SHOP\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: ana@example.com\n',
  'cases/Checkout/pay.yaml': 'title: Pay by card\n',
  'cases/Checkout/refund.tc.json': '{\n  "title": "Refund",\n  "description": "Money back."\n}\n',
};

describe('a second repository format', () => {
  it('is loaded, planned and written back through the format interface alone', async () => {
    unregister = registerFormat(jsonCases);
    const dir = await makeRepo(FILES);
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const { state, problems } = await loadRepository(root, config);
    expect(problems).toEqual([]);
    const refund = state.cases.find((c) => c.file === 'cases/Checkout/refund.tc.json');
    expect(refund).toMatchObject({ title: 'Refund', folderPath: ['Checkout'], fields: { description: 'Money back.' } });
    expect(state.cases.map((c) => c.file)).toEqual(['cases/Checkout/pay.yaml', 'cases/Checkout/refund.tc.json']);

    const { plan, problems: planProblems } = buildPlan(state, actualState({ folders: [remoteFolder('f1', 'Checkout')] }));
    expect(planProblems).toEqual([]);
    const create = plan.operations.find((op) => op.kind === 'create_case' && op.writeBack.file === 'cases/Checkout/refund.tc.json');
    expect(create).toMatchObject({ kind: 'create_case', path: ['Checkout'], body: { title: 'Refund', description: 'Money back.' } });

    await fileWriteBack(root)('cases/Checkout/refund.tc.json', 'SHOP-7');
    expect(JSON.parse(await readFile(join(root, 'cases/Checkout/refund.tc.json'), 'utf8'))).toEqual({ id: 'SHOP-7', title: 'Refund', description: 'Money back.' });
    expect(await readWrittenId(root, 'cases/Checkout/refund.tc.json')).toBe('SHOP-7');
    // the YAML file beside it is read as before
    const again = await loadRepository(root, config);
    expect(again.state.cases.find((c) => c.file === 'cases/Checkout/refund.tc.json')?.id).toBe('SHOP-7');
  });

  it('is updated in place by pull through its own format, and new files stay in the default one', async () => {
    unregister = registerFormat(jsonCases);
    const dir = await makeRepo({ ...FILES, 'cases/Checkout/refund.tc.json': '{\n  "id": "SHOP-7",\n  "title": "Refund",\n  "description": "Money back."\n}\n' });
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const actual = actualState({
      folders: [remoteFolder('f1', 'Checkout')],
      cases: [remoteCase('SHOP-7', 'Refund at once', 'f1', { description: 'Money back.' }), remoteCase('SHOP-8', 'Pay by card', 'f1')],
    });
    const result = await pullIntoRepository(actual, { root, config, syncFileSystem: async () => false });
    expect(result.updated).toContain('cases/Checkout/refund.tc.json');
    const data = JSON.parse(await readFile(join(root, 'cases/Checkout/refund.tc.json'), 'utf8')) as Record<string, unknown>;
    expect(data).toMatchObject({ id: 'SHOP-7', title: 'Refund at once', description: 'Money back.' });
    // the YAML case without an id is adopted by its title; no new file of either format is made for it
    expect(result.created.filter((f) => f.endsWith('.tc.json'))).toEqual([]);
    expect(await readWrittenId(root, 'cases/Checkout/pay.yaml')).toBe('SHOP-8');
  });

  it('reports a file of the format at its file and position, and is unknown once removed', async () => {
    unregister = registerFormat(jsonCases);
    const dir = await makeRepo({ ...FILES, 'cases/Checkout/broken.tc.json': '{ "title": ' });
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const { problems } = await loadRepository(root, config);
    expect(problems).toEqual([expect.objectContaining({ file: 'cases/Checkout/broken.tc.json', line: 1, col: 1, code: 'invalid_format' })]);
    unregister();
    unregister = undefined;
    const without = await loadRepository(root, config);
    expect(without.problems).toEqual([]);
    expect(without.state.cases.map((c) => c.file)).toEqual(['cases/Checkout/pay.yaml']);
  });

  it('refuses a format claiming an extension another one claims', () => {
    expect(() => registerFormat({ ...jsonCases, name: 'other', extensions: ['.yml'] })).toThrow(/claimed by yaml/);
  });
});
