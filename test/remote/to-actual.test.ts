import { describe, expect, it } from 'vitest';
import {
  normalizeTimestamp,
  toLabel,
  toLookup,
  toRemoteCase,
  toRemoteFolder,
  toRemoteProject,
  toRemoteStepGroup,
  toRemoteTestPlan,
  toUser,
} from '../../src/remote/index.js';
import { TestCase } from '../../src/api/index.js';
import { textSharer } from '../../src/remote/to-actual.js';

describe('normalizers', () => {
  it('turns millisecond timestamps into seconds and leaves seconds alone', () => {
    expect(normalizeTimestamp(1_700_000_000)).toBe(1_700_000_000);
    expect(normalizeTimestamp(1_700_000_000_123)).toBe(1_700_000_000);
  });

  it("keeps the project's web UI link as webUrl, and has no webUrl key when the answer gives none", () => {
    const p = { id: 'p1', name: 'Demo', description: '', human_id_prefix: 'DEMO', created_at: 1, updated_at: 1 };
    expect(toRemoteProject({ ...p, web_url: 'http://127.0.0.1:4010/ui/projects/DEMO' }).webUrl).toBe('http://127.0.0.1:4010/ui/projects/DEMO');
    expect(Object.keys(toRemoteProject(p))).not.toContain('webUrl');
  });

  it('makes both root-parent spellings null', () => {
    const f = { id: 'f', name: 'A', project_id: 'p', children: [], order: 2 };
    expect(toRemoteFolder({ ...f, parent_folder_id: '' }).parentId).toBeNull();
    expect(toRemoteFolder({ ...f, parent_folder_id: null }).parentId).toBeNull();
    expect(toRemoteFolder({ ...f, parent_folder_id: 'root' }).parentId).toBe('root');
  });

  it('normalizes a live-style case: nulls to empty strings, ms timestamps, steps in order without their ids, labels unknown when absent', () => {
    const wire = TestCase.parse({
      id: 'c1',
      title: 'T',
      description: null,
      project_id: 'p',
      folder_id: 'f',
      created_at: 1_700_000_000_000,
      updated_at: 1_700_000_001_000,
      individual_steps: [
        { id: 's2', step_description: 'b', expected_results: null, order: 2, step_type: 'DEFAULT', step_group_id: '' },
        { id: 's1', step_description: 'a', expected_results: 'A', order: 1, step_group_id: 'g1' },
      ],
      surprise: true,
    });
    const c = toRemoteCase(wire);
    expect(c).toMatchObject({ id: 'c1', humanId: '', description: '', createdAt: 1_700_000_000, updatedAt: 1_700_000_001 });
    expect(c.individualSteps).toEqual([
      { description: 'a', expected: 'A', order: 1, stepGroupId: 'g1' },
      { description: 'b', expected: '', order: 2, stepType: 'DEFAULT', stepGroupId: null },
    ]);
    expect('labelIds' in c).toBe(false);
    expect(toRemoteCase({ ...wire, label_ids: ['l1'] }).labelIds).toEqual(['l1']);
  });

  it('reads a case the same with a shared text pool as without, key order included, with no undefined keys', () => {
    const wire = (i: number) =>
      TestCase.parse({
        id: `c${i}`,
        title: `T${i}`,
        description: null,
        project_id: 'p',
        folder_id: 'f',
        type_id: 'type-1',
        owner_id: null,
        label_ids: i % 2 ? ['l1', 'l2'] : undefined,
        created_at: 1,
        updated_at: 2,
        individual_steps: [{ id: `s${i}`, step_description: 'shared', expected_results: null, order: 1, step_group_id: 'g1' }],
      });
    const share = textSharer();
    for (const i of [1, 2, 3]) {
      const plain = toRemoteCase(wire(i));
      const shared = toRemoteCase(wire(i), share);
      expect(shared).toStrictEqual(plain);
      expect(Object.keys(shared)).toEqual(Object.keys(plain));
      expect(Object.values(shared).includes(undefined)).toBe(false);
      expect('labelIds' in shared).toBe(i % 2 === 1);
    }
  });

  it('orders step group steps and reads expected results', () => {
    const g = toRemoteStepGroup({
      id: 'g',
      title: 'G',
      description: 'd',
      human_id: 'P-SG-1',
      project_id: 'p',
      created_at: 1,
      updated_at: 2,
      steps: [
        { id: 'b', step_description: 'two', expected_results: 'B', order: 2, step_group_id: 'g' },
        { id: 'a', step_description: 'one', expected_results: 'A', order: 1, step_group_id: 'g' },
      ],
    });
    expect(g.steps.map((s) => s.description)).toEqual(['one', 'two']);
    expect(g.humanId).toBe('P-SG-1');
  });

  it('normalizes plans, lookups, users and labels', () => {
    expect(toRemoteTestPlan({ id: 'p', title: 'P', status: 'ACTIVE', start_date: 1_700_000_000_000, end_date: null, created_at: 1, updated_at: 1 })).toEqual({
      id: 'p',
      humanId: '',
      title: 'P',
      description: '',
      status: 'ACTIVE',
      startDate: 1_700_000_000,
      createdAt: 1,
      updatedAt: 1,
    });
    expect(toLookup({ id: 'l', name: 'Draft', order: 1, alias: null })).toEqual({ id: 'l', name: 'Draft', order: 1 });
    expect(toUser({ id: 'u', email: 'a@b', first_name: 'A', last_name: null })).toEqual({ id: 'u', email: 'a@b', firstName: 'A' });
    expect(toLabel({ id: 'x', name: 'smoke', createdAt: 5 })).toEqual({ id: 'x', name: 'smoke' });
  });
});
