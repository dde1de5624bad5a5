import { describe, expect, it } from 'vitest';
import { SyncBase } from '../../src/base/base.js';
import { implicitKeys } from '../../src/pull/pull-implicit.js';
import { remoteCaseBaseFields } from '../../src/pull/pull-merge.js';
import { folderFieldValues } from '../../src/base/field-values.js';
import type { PullFile } from '../../src/pull/pull-files.js';
import type { CaseDefaults, RemoteCase } from '../../src/model.js';
import { actualState, remoteCase, remoteFolder } from '../plan/builders.js';

type UpdateFile = Extract<PullFile, { action: 'update' }>;
const caseFile = (id: string): UpdateFile => ({ kind: 'case', path: 'cases/Login/a.yaml', action: 'update', content: '', itemId: id, fields: {} });
const folderFile = (id: string): UpdateFile => ({ kind: 'folder', path: 'cases/Login/_folder.yaml', action: 'update', content: '', itemId: id, fields: {} });

// written as people write them: another letter case, an alias, an email
const DEFAULTS: CaseDefaults = { type: 'func', status: 'draft', priority: 'Medium', automationType: 'Not Automated', owner: 'ANA@example.com' };

describe('implicitKeys: which keys a file leaves out stay out after a pull', () => {
  const withDefaults = remoteCase('SHOP-1', 'Sign in', 'f1', { description: 'Signs in.' });

  it('without a base: a value equal to the default stays out, one that differs is written, a key without a default is written', () => {
    const other: RemoteCase = { ...withDefaults, id: 'case-SHOP-2', humanId: 'SHOP-2', priorityId: 'priority-high' };
    const keep = implicitKeys({ actual: actualState({ cases: [withDefaults, other] }), defaults: DEFAULTS });
    for (const key of ['type', 'status', 'priority', 'automation_type', 'owner']) expect(keep(caseFile(withDefaults.id), key), key).toBe(true);
    expect(keep(caseFile(other.id), 'priority')).toBe(false);
    expect(keep(caseFile(other.id), 'status')).toBe(true);
    expect(keep(caseFile(withDefaults.id), 'description')).toBe(false);
    // no defaults: nothing is implied
    expect(implicitKeys({ actual: actualState({ cases: [withDefaults] }), defaults: {} })(caseFile(withDefaults.id), 'priority')).toBe(false);
    // id and title are pull's own
    expect(keep(caseFile(withDefaults.id), 'id')).toBe(false);
  });

  it('with a base: a key stays out while the service keeps the value the base recorded, and is written once the service changes it', () => {
    const base = new SyncBase('project-1');
    base.record('case', withDefaults.id, withDefaults.updatedAt, remoteCaseBaseFields(withDefaults));
    const same = implicitKeys({ actual: actualState({ cases: [withDefaults] }), defaults: {}, base });
    for (const key of ['description', 'priority', 'owner', 'steps', 'labels']) expect(same(caseFile(withDefaults.id), key), key).toBe(true);

    const edited: RemoteCase = { ...withDefaults, priorityId: 'priority-medium', description: 'Signs in with SSO.', reviewerId: 'user-ben', updatedAt: 300 };
    const changed = implicitKeys({ actual: actualState({ cases: [edited] }), defaults: DEFAULTS, base });
    expect(changed(caseFile(edited.id), 'description')).toBe(false);
    expect(changed(caseFile(edited.id), 'reviewer')).toBe(false);
    expect(changed(caseFile(edited.id), 'priority')).toBe(true);
  });

  it("a folder's order left out is written only when the base saw it change", () => {
    const folder = remoteFolder('f1', 'Login', null, 0);
    expect(implicitKeys({ actual: actualState({ folders: [folder] }), defaults: {} })(folderFile('f1'), 'order')).toBe(true);
    const base = new SyncBase('project-1');
    base.record('folder', 'f1', undefined, folderFieldValues(folder));
    const moved = implicitKeys({ actual: actualState({ folders: [{ ...folder, order: 1 }] }), defaults: {}, base });
    expect(moved(folderFile('f1'), 'order')).toBe(false);
    // a folder's name is the directory's: left to pull's layout
    expect(moved(folderFile('f1'), 'name')).toBe(false);
  });
});
