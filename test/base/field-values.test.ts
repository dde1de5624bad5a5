import { describe, expect, it } from 'vitest';
import type { RemoteCase } from '../../src/model.js';
import { SyncBase, fieldHash } from '../../src/base/base.js';
import {
  caseFieldValues,
  changedFromBase,
  changedSinceBase,
  classifyItem,
  desiredCaseFieldValues,
  desiredStepGroupFieldValues,
  fieldLabel,
  stepGroupFieldValues,
} from '../../src/base/field-values.js';

const remote: RemoteCase = {
  id: 'c-1',
  humanId: 'SHOP-1',
  title: ' Log in ',
  folderId: 'f-1',
  description: 'Opens the page  \r\n',
  preconditions: '',
  templateType: 'STEPS',
  steps: '',
  expectedResults: '',
  typeId: 'type-1',
  statusId: 'status-1',
  priorityId: 'priority-1',
  automationTypeId: 'auto-1',
  ownerId: 'user-1',
  reviewerId: '',
  labelIds: ['b', 'a', 'b'],
  individualSteps: [
    { description: 'Second', expected: '', order: 2, stepGroupId: null },
    { description: 'First', expected: 'Shown', order: 1, stepGroupId: 'g-1' },
  ],
  createdAt: 1,
  updatedAt: 2,
};

function entryOf(values: Record<string, unknown>) {
  const base = new SyncBase('p');
  base.record('case', 'c-1', 2, values);
  return base.get('case', 'c-1')!;
}

describe('the compare form of a field', () => {
  it('gives the service case and the same case built from a file the same values (normalized texts, ids, sorted labels, ordered steps)', () => {
    const fromService = caseFieldValues(remote);
    const fromFile = desiredCaseFieldValues({
      title: 'Log in',
      folder: { id: 'f-1' },
      description: 'Opens the page',
      typeId: 'type-1',
      labelIds: ['a', 'b'],
      individualSteps: [
        { description: 'First', expected: 'Shown', stepGroup: { id: 'g-1' } },
        { description: 'Second', expected: '', stepGroup: null },
      ],
    });
    for (const [name, value] of Object.entries(fromFile)) expect(fromService[name], name).toEqual(value);
    // a file leaves fields out: they are not managed, so not compared
    expect(Object.keys(fromFile).sort()).toEqual(['description', 'labels', 'steps', 'title', 'type']);
  });

  it('writes a step group created by the same apply as op:<key>, a value no base holds', () => {
    const v = desiredCaseFieldValues({ title: 't', folder: { id: 'f' }, individualSteps: [{ description: 'a', expected: '', stepGroup: { op: 'create_step_group:login' } }] });
    expect(v.steps).toEqual([{ description: 'a', expected: '', stepGroup: 'op:create_step_group:login' }]);
  });

  it('leaves labels out when the service did not report them', () => {
    expect('labels' in caseFieldValues({ ...remote, labelIds: undefined })).toBe(false);
  });

  it('names fields for people by their YAML key, and a group step by its 1-based number', () => {
    expect(fieldLabel('automationType')).toBe('automation_type');
    expect(fieldLabel('stepsText')).toBe('steps');
    expect(fieldLabel('step.0')).toBe('step 1');
  });
});

describe('classifyItem: each managed field three ways', () => {
  const entry = entryOf({ title: 'Log in', description: 'base', type: 'type-1' });

  it('tells a change in the repository, on the service, on both (a conflict) and no change apart', () => {
    const classes = classifyItem(entry, { title: 'Log in', description: 'file', type: 'type-2' }, { title: 'Log in 2', description: 'UI', type: 'type-1' });
    expect(classes.map((c) => [c.field, c.standing])).toEqual([
      ['description', 'conflict'],
      ['title', 'remote'],
      ['type', 'local'],
    ]);
    expect(classes[0]).toMatchObject({ local: 'file', remote: 'UI' });
  });

  it('has nothing to do for a field equal on both sides, changed or not', () => {
    expect(classifyItem(entry, { description: 'new' }, { description: 'new' })).toEqual([{ field: 'description', standing: 'unchanged', local: 'new', remote: 'new' }]);
  });

  it('compares two ways (no_base) without an entry, for a field the base lacks, and for a field the service does not report', () => {
    expect(classifyItem(undefined, { description: 'x' }, { description: 'y' })[0].standing).toBe('no_base');
    expect(classifyItem(entry, { preconditions: 'x' }, { preconditions: 'y' })[0].standing).toBe('no_base');
    expect(classifyItem(entry, { labels: ['a'] }, {})[0].standing).toBe('no_base');
  });

  it('compares a step group step by step: a step one side added or removed is a change against null', () => {
    const base = new SyncBase('p');
    const synced = desiredStepGroupFieldValues({ title: 'G', steps: [{ description: 'a', expected: '' }] });
    base.record('step_group', 'g', 1, synced);
    const e = base.get('step_group', 'g')!;
    const service = stepGroupFieldValues({ id: 'g', humanId: 'G-1', title: 'G', description: '', steps: [{ description: 'a', expected: '', order: 1 }, { description: 'added in UI', expected: '', order: 2 }], createdAt: 1, updatedAt: 2 });
    const classes = classifyItem(e, synced, service);
    expect(classes.find((c) => c.field === 'step.1')).toMatchObject({ standing: 'remote', local: null, remote: { description: 'added in UI', expected: '' } });
    expect(classes.find((c) => c.field === 'step.0')?.standing).toBe('unchanged');
  });
});

describe('an item against its base', () => {
  it('names the fields the service changed, and the fields the repository changed', () => {
    const entry = entryOf({ title: 'T', description: 'base', human_id: 'SHOP-1' });
    expect(changedSinceBase(entry, { title: 'T', description: 'UI', preconditions: 'not in the base' })).toEqual(['description']);
    expect(changedFromBase(entry, { title: 'T2', description: 'base' })).toEqual(['title']);
    expect(changedFromBase(entry, { title: 'T', description: 'base' })).toEqual([]);
    expect(entry.fields.get('human_id')).toBe(fieldHash('SHOP-1'));
  });
});
