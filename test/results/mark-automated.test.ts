import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markAutomated } from '../../src/results/mark-automated.js';

let root: string;
const TYPES = [{ name: 'Automated', alias: 'auto' }, { name: 'Not Automated' }];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tmsync-mark-'));
  await mkdir(join(root, 'cases', 'Checkout'), { recursive: true });
  await writeFile(join(root, 'cases/Checkout/pays.yaml'), '# reviewed by QA\nid: SHOP-1\ntitle: Pays\nautomation_type: Not Automated # until CI runs it\npriority: High\n');
  await writeFile(join(root, 'cases/Checkout/refunds.yaml'), 'id: SHOP-2\ntitle: Refunds\nautomation_type: auto\n');
  await writeFile(join(root, 'cases/Checkout/ships.yaml'), 'id: SHOP-3\ntitle: Ships\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const cases = [{ id: 'u1', humanId: 'SHOP-1' }, { id: 'u2', humanId: 'SHOP-2' }, { id: 'u3', humanId: 'SHOP-3' }, { id: 'u9', humanId: 'SHOP-9' }];

describe('markAutomated', () => {
  it('sets automation_type in the files of pushed cases that are not automated, keeps comments and the other keys, lists cases the repository lacks', async () => {
    const r = await markAutomated({ root, casesDir: 'cases', cases, automatedType: 'Automated', types: TYPES, defaultType: 'Not Automated' });
    expect(r.edited).toEqual([
      { path: 'cases/Checkout/pays.yaml', ref: 'SHOP-1', from: 'Not Automated' },
      { path: 'cases/Checkout/ships.yaml', ref: 'SHOP-3' },
    ]);
    // an alias of the automated type counts as automated
    expect(r.already).toBe(1);
    expect(r.notInRepository).toEqual(['SHOP-9']);
    expect(await readFile(join(root, 'cases/Checkout/pays.yaml'), 'utf8')).toBe('# reviewed by QA\nid: SHOP-1\ntitle: Pays\nautomation_type: Automated # until CI runs it\npriority: High\n');
    expect(await readFile(join(root, 'cases/Checkout/ships.yaml'), 'utf8')).toBe('id: SHOP-3\ntitle: Ships\nautomation_type: Automated\n');
    expect(await readFile(join(root, 'cases/Checkout/refunds.yaml'), 'utf8')).toBe('id: SHOP-2\ntitle: Refunds\nautomation_type: auto\n');
  });

  it('a file without the key whose default is automated is left alone; a dry run lists and writes nothing', async () => {
    const r = await markAutomated({ root, casesDir: 'cases', cases, automatedType: 'Automated', types: TYPES, defaultType: 'Automated', dryRun: true });
    expect(r.edited.map((e) => e.ref)).toEqual(['SHOP-1']);
    expect(r.already).toBe(2);
    expect(await readFile(join(root, 'cases/Checkout/pays.yaml'), 'utf8')).toContain('automation_type: Not Automated');
  });
});
