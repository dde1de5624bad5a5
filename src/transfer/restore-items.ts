import { findCase, findFolder, findStepGroup } from '../apply/reconcile.js';
import type { Backup, BackupFolder, BackupTestCase } from './backup-format.js';
import { fillSelf, KIND_REQUESTS, requestsFor, type RequestDescriptor } from '../apply/requests.js';
import type { CreateFolderOp, Ref, StepGroupBody } from '../plan/operations.js';
import { caseBody } from './restore-bodies.js';
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
  // apply's rule for a new folder (create at the top level, then move): one table of requests
  const op: CreateFolderOp = {
    kind: 'create_folder',
    key: `folder:${f.id}`,
    dependsOn: [],
    path: [],
    name: f.name,
    parent: parentId === null ? null : { id: parentId },
    // a restore writes no files
    writeBack: { file: '' },
  };
  const [create, ...then] = requestsFor(op, resolveKnown, r.o.target.id);
  const { id, fresh } = await r.create(
    'folder',
    f.id,
    () => findFolder(r.find, f.name, parentId),
    async (reconcile) => (await send(r, create, { reconcile })).data[create.resultKey ?? 'folder'],
  );
  // the move is idempotent, so a resumed run repeats it safely
  for (const req of then) await send(r, fillSelf(req, id));
  await r.journal.done('folder', f.id, id);
  if (fresh) r.created.folders += 1;
}

export async function restoreStepGroup(r: RestoreRun, g: Backup['step_groups'][number]): Promise<void> {
  if (r.finished('step_group', g.id)) return;
  const body: StepGroupBody = {
    title: g.title,
    description: g.description,
    ...(g.label_ids ? { labelIds: r.map.labels(g.label_ids) } : {}),
    steps: [...g.steps].sort((a, b) => a.order - b.order).map((s) => ({ description: s.description, expected: s.expected })),
  };
  const [create] = KIND_REQUESTS.create_step_group({ kind: 'create_step_group', key: `step_group:${g.id}`, dependsOn: [], localKey: g.id, body, writeBack: { file: '' } }, resolveKnown, r.o.target.id);
  const { id, fresh } = await r.create(
    'step_group',
    g.id,
    () => findStepGroup(r.find, g.title),
    async (reconcile) => (await send(r, create, { reconcile })).data[create.resultKey ?? 'step_group'],
  );
  await r.journal.done('step_group', g.id, id);
  if (fresh) r.created.step_groups += 1;
}

/** Every reference of a restore's operation is an id known already. */
const resolveKnown = (ref: Ref): string => {
  if ('id' in ref) return ref.id;
  throw new Error(`internal: a restore request refers to ${ref.op}`);
};

/** Sends one request descriptor of the operation table. */
function send(r: RestoreRun, req: RequestDescriptor, extra: { reconcile?: () => Promise<unknown> } = {}): Promise<any> {
  return r.o.client.call(req.endpoint, {
    params: req.params,
    ...(req.body !== undefined ? { body: req.body } : {}),
    ...extra,
    ...(r.o.signal ? { signal: r.o.signal } : {}),
  });
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
