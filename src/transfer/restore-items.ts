import { findCase, findFolder, findStepGroup } from '../apply/reconcile.js';
import type { Backup, BackupFolder, BackupTestCase } from './backup-format.js';
import { caseBody, stepGroupBody } from './restore-bodies.js';
import type { RestoreRun } from './restore-run.js';
import { forEachLimit } from './streams.js';

/** Restoring folders, step groups and cases (test plans and runs: `restore-runs.ts`). */

/** Folders: parents before children; siblings one after another so they keep their order. */
export async function restoreFolders(r: RestoreRun, about: (what: string, fn: () => Promise<void>) => Promise<void>): Promise<void> {
  const children = new Map<string | null, BackupFolder[]>();
  for (const f of r.backup.folders) children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f]);
  for (const list of children.values()) list.sort((a, b) => a.order - b.order);
  const total = r.backup.folders.length;
  let done = 0;
  r.o.onProgress?.({ phase: 'folders', done, total });
  let level: (string | null)[] = [null];
  while (level.length > 0) {
    const next: string[] = [];
    await forEachLimit(
      level,
      r.parallel,
      async (parent) => {
        for (const f of children.get(parent) ?? []) {
          await about(`folder "${f.name}"`, () => restoreFolder(r, f));
          next.push(f.id);
          done += 1;
          r.o.onProgress?.({ phase: 'folders', done, total });
        }
      },
      r.o.signal,
    );
    level = next;
  }
}

async function restoreFolder(r: RestoreRun, f: BackupFolder): Promise<void> {
  if (r.finished('folder', f.id)) return;
  const parentId = f.parent_id === null ? null : r.newId('folder', f.parent_id);
  const { id, fresh } = await r.create(
    'folder',
    f.id,
    () => findFolder(r.find, f.name, parentId),
    async (reconcile) => (await r.o.client.call('createFolder', { params: r.params, body: { name: f.name }, reconcile, signal: r.o.signal })).data.folder,
  );
  // the service creates folders at the top level; the move is idempotent, so a resumed run repeats it safely
  if (parentId !== null) {
    await r.o.client.call('moveFolder', { params: { ...r.params, folder_id: id }, body: { parent_folder_id: parentId }, signal: r.o.signal });
  }
  await r.journal.done('folder', f.id, id);
  if (fresh) r.created.folders += 1;
}

export async function restoreStepGroup(r: RestoreRun, g: Backup['step_groups'][number]): Promise<void> {
  if (r.finished('step_group', g.id)) return;
  const body = stepGroupBody(g, r.map);
  const { id, fresh } = await r.create(
    'step_group',
    g.id,
    () => findStepGroup(r.find, g.title),
    async (reconcile) => (await r.o.client.call('createStepGroup', { params: r.params, body, reconcile, signal: r.o.signal })).data.step_group,
  );
  await r.journal.done('step_group', g.id, id);
  if (fresh) r.created.step_groups += 1;
}

export async function restoreCase(r: RestoreRun, c: BackupTestCase): Promise<void> {
  if (r.finished('case', c.id)) return;
  const body = caseBody(c, r.map, r.idOf);
  const folderId = body.folder_id as string;
  const { id, fresh } = await r.create(
    'case',
    c.id,
    () => findCase(r.find, c.title, folderId),
    async (reconcile) => (await r.o.client.call('createTestCase', { params: r.params, body, reconcile, signal: r.o.signal })).data.test_case,
  );
  await r.journal.done('case', c.id, id);
  if (fresh) r.created.test_cases += 1;
}
