import { itemRef } from '../model.js';
import type { DesiredCase, RemoteCase } from '../model.js';
import type { BaseEntry } from '../base/base.js';
import { caseFieldValues, changedFromBase, desiredCaseFieldNames, desiredCaseFieldValues, fieldLabel, remoteCaseHas, type FieldValues } from '../base/field-values.js';
import { caseChanges, desiredBody, keepRemoteFields, type DesiredBody } from './case-body.js';
import { claimById, foundElsewhere, problem, type PlanContext } from './context.js';
import { folderRef, type FolderNode, type FolderPlan } from './folders.js';
import { normalizeTitle, pathKey, showPath } from '../base/normalize-text.js';
import { matchNaturalKeys } from './natural-key.js';
import type { CaseBody, CreateCaseOp, FieldChange, Operation, Ref } from './operations.js';
import type { StepGroupPlan } from './step-groups.js';
import { baseEntryFor, mergeEqual, mergeItem, type SyncRecord } from './sync.js';

export interface CaseMatch {
  desired: DesiredCase;
  node?: FolderNode;
  remote?: RemoteCase;
  adopted: boolean;
  /** identity could not be settled (a problem says why): no operation is planned for it */
  failed?: boolean;
  /** remote ids of the step groups the case uses after the plan; undefined when steps are not managed */
  stepGroupIds?: string[];
  /** its `id:` names a case the service no longer has, which the sync base recorded: deleted on the service */
  gone?: BaseEntry;
}

export interface CasePlan {
  /** create/update/move/adopt */
  ops: Operation[];
  matches: CaseMatch[];
  /** remote case ids the repository claims */
  claimed: Set<string>;
  /** key of the operation that changes a claimed remote case, by its id */
  opByRemoteId: Map<string, string>;
  /** for the renderers (`PlanDisplay.stepGroupLabels`): the step groups of a new case's steps, by operation key */
  stepGroupLabels: Map<string, readonly (string | undefined)[]>;
}

function who(r: RemoteCase): string {
  return `${r.humanId || r.id} "${r.title}"`;
}

function matchCases(ctx: PlanContext, folders: FolderPlan): CaseMatch[] {
  const matches: CaseMatch[] = [];
  for (const desired of ctx.desired.cases) {
    if (desired.folderPath.length === 0) {
      problem(ctx, 'case_outside_folder', desired.file, 1, 'a test case must be inside a folder (a directory under the cases directory)', 'move the file into a directory');
      continue;
    }
    matches.push({ desired, node: folders.byPath.get(pathKey(desired.folderPath)), adopted: false });
  }
  const claimedBy = new Map<string, CaseMatch>();
  for (const m of matches) {
    const id = m.desired.id;
    if (id === undefined) continue;
    // looked up once: the service's case by this id, if it has one
    const found = ctx.remote.caseByRef(id);
    const gone = ctx.sync && !found && !foundElsewhere(ctx, id) ? baseEntryFor(ctx.sync, 'case', id) : undefined;
    if (gone) {
      m.gone = gone;
      continue;
    }
    const remote = claimById(ctx, claimedBy, (o) => o.desired.file, {
      claimant: m,
      id,
      remote: found,
      label: `test case "${m.desired.title}"`,
      noun: 'test case',
      file: m.desired.file,
      line: m.desired.lines.id,
    });
    if (!remote) {
      m.failed = true;
      continue;
    }
    m.remote = remote;
  }
  // natural key: folder + title, among the cases no id claims
  matchNaturalKeys(matches, claimedBy, {
    scopeOf: (m) => (m.desired.id === undefined ? m.node?.remote?.id : undefined),
    remotesIn: (folderId) => ctx.remote.casesIn(folderId),
    itemKey: (m) => normalizeTitle(m.desired.title),
    remoteKey: (c) => normalizeTitle(c.title),
    onAmbiguous: (m, candidates) => {
      problem(
        ctx,
        'ambiguous_match',
        m.desired.file,
        m.desired.lines.title,
        `test case "${m.desired.title}" matches ${candidates.length} cases in ${showPath(m.node!.displayPath)} on the service: ${candidates.map(who).join(', ')}`,
        'add `id:` to say which one it is',
      );
      m.failed = true;
    },
    onDuplicate: (m, other, remote) => {
      problem(
        ctx,
        'duplicate_claim',
        m.desired.file,
        m.desired.lines.title,
        `test cases ${other.desired.file} and ${m.desired.file} both match ${who(remote)} in ${showPath(m.node!.displayPath)}`,
        `give them different titles, or add \`id: ${remote.humanId || remote.id}\` to the one that is the existing case`,
      );
      m.failed = true;
    },
    onMatch: (m, remote) => {
      m.remote = remote;
      m.adopted = true;
    },
  });
  return matches;
}

/** Matches cases and plans their creates, updates, moves and adopts. */
export function planCases(ctx: PlanContext, folders: FolderPlan, groups: StepGroupPlan): CasePlan {
  const matches = matchCases(ctx, folders);
  const ops: Operation[] = [];
  const opByRemoteId = new Map<string, string>();
  const stepGroupLabels = new Map<string, readonly (string | undefined)[]>();
  for (const m of matches) {
    const node = m.node;
    if (!node || m.failed) continue;
    const dc = m.desired;
    if (node.deleted) {
      inDeletedFolder(ctx, m, node, groups);
      continue;
    }
    if (m.gone && !goneRecreated(ctx, m, m.gone, node, groups)) continue;
    let d = desiredBody(ctx, dc, folderRef(node), groups, !m.remote);
    // made only for the cases that get an operation (most of a large plan has none); of the body as
    // the file describes it, before any field is kept as the service holds it
    const groupOps = d.groupOps;
    const dependsOn = () => [...(node.createKey ? [node.createKey] : []), ...groupOps];
    if (!m.remote) {
      m.stepGroupIds = d.usedGroupIds;
      const key = `create_case:${itemRef(dc.file, dc.at)}`;
      if (ctx.sync?.collect) ctx.sync.records.push(createRecord(key, d.body));
      if (m.gone && ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'case', id: m.gone.id, op: key });
      const op: CreateCaseOp = { kind: 'create_case', key, dependsOn: dependsOn(), path: node.displayPath, body: d.body, writeBack: { file: itemRef(dc.file, dc.at) } };
      ops.push(op);
      if (d.stepGroupLabels.some((l) => l !== undefined)) stepGroupLabels.set(key, d.stepGroupLabels);
      continue;
    }
    const remote = m.remote;
    let keepBase: string[] = NONE;
    let keepRemote: ReadonlySet<string> = NO_FIELDS;
    let changes: FieldChange[] | undefined;
    if (ctx.sync) {
      const desired = d;
      const twoWay = caseChanges(ctx, desired, remote);
      changes = twoWay;
      // all equal (labels too: the two-way compare skips them when some cases of the project do not report theirs)
      if (twoWay.length === 0 && (ctx.actual.labelsReadable || remote.labelIds === undefined)) {
        mergeEqual(ctx.sync, 'case', remote.id, desiredCaseFieldNames(d.body), (name) => remoteCaseHas(remote, name));
      } else {
        const merge = mergeItem(
          ctx.sync,
          { itemType: 'case', id: remote.id, humanId: remote.humanId, path: node.displayPath, title: d.body.title, file: dc.file },
          'case',
          desiredCaseFieldValues(d.body),
          caseFieldValues(remote),
          (name) => twoWay.find((c) => c.field === fieldLabel(name)),
        );
        if (merge.keepRemote.size > 0) {
          keepRemote = merge.keepRemote;
          d = keepRemoteFields(ctx, d, remote, keepRemote);
          changes = undefined;
        }
        if (merge.keepBase.length > 0) keepBase = merge.keepBase;
      }
    }
    m.stepGroupIds = d.usedGroupIds;
    changes ??= caseChanges(ctx, d, remote);
    const record = (op?: string) => {
      if (ctx.sync?.collect) ctx.sync.records.push(new ComparedCaseRecord(ctx, groups, dc, node, remote, keepRemote, keepBase, op));
    };
    const moved = !node.remote || node.remote.id !== remote.folderId;
    const fromPath = () => ctx.remote.folderPath(remote.folderId);
    const writeBack = m.adopted ? { file: itemRef(dc.file, dc.at), id: remote.humanId || remote.id } : undefined;
    if (changes.length > 0) {
      const key = `update_case:${itemRef(dc.file, dc.at)}`;
      opByRemoteId.set(remote.id, key);
      record(key);
      ops.push({
        kind: 'update_case',
        key,
        dependsOn: dependsOn(),
        id: remote.id,
        humanId: remote.humanId,
        path: node.displayPath,
        ...(moved ? { fromPath: fromPath() } : {}),
        body: d.body,
        changes,
        ...(writeBack ? { writeBack } : {}),
      });
    } else if (moved) {
      const key = `move_case:${itemRef(dc.file, dc.at)}`;
      opByRemoteId.set(remote.id, key);
      record(key);
      ops.push({
        kind: 'move_case',
        key,
        dependsOn: node.createKey ? [node.createKey] : [],
        id: remote.id,
        humanId: remote.humanId,
        title: d.body.title,
        fromPath: fromPath(),
        path: node.displayPath,
        folder: folderRef(node),
        ...(writeBack ? { writeBack } : {}),
      });
    } else if (writeBack) {
      record(`adopt_case:${itemRef(dc.file, dc.at)}`);
      ops.push({
        kind: 'adopt',
        key: `adopt_case:${itemRef(dc.file, dc.at)}`,
        dependsOn: [],
        itemType: 'case',
        id: remote.id,
        humanId: remote.humanId,
        path: node.displayPath,
        title: d.body.title,
        writeBack,
      });
    } else {
      record();
    }
  }
  const claimed = new Set(matches.flatMap((m) => (m.remote ? [m.remote.id] : [])));
  return { ops, matches, claimed, opByRemoteId, stepGroupLabels };
}

/*
 * The records below compute their values when read. They are made
 * here, outside `planCases`, so that what they hold is only what they name: a closure made inside
 * would keep the plan's whole context alive (the repository's state with it) for as long as the
 * plan or its records live, through an apply.
 */

/**
 * What the apply records in the sync base for a new case: its values computed when recorded, not
 * held twice. A class, not an object literal with a getter: a literal's getter is a closure per
 * record (and an object shape of its own).
 */
class CreateRecord implements SyncRecord {
  readonly kind = 'case';
  readonly ref: Ref;
  readonly ops: string[];
  readonly keep: string[] = [];
  constructor(
    key: string,
    private readonly body: CaseBody,
  ) {
    this.ref = { op: key };
    this.ops = [key];
  }
  get values(): FieldValues {
    return desiredCaseFieldValues(this.body);
  }
}

function createRecord(key: string, body: CaseBody): SyncRecord {
  return new CreateRecord(key, body);
}

const NONE: string[] = [];
const NO_FIELDS: ReadonlySet<string> = new Set();

/**
 * What the apply records for a case the plan compared. Its values (the service's compare form with
 * the file's managed fields over it) are computed when the apply records them, from the file and
 * the service's copy, as the plan computed its body: a large plan holds no second copy of their
 * bodies, and the record no closure.
 */
class ComparedCaseRecord implements SyncRecord {
  readonly ops: string[];

  constructor(
    private readonly ctx: PlanContext,
    private readonly groups: StepGroupPlan,
    private readonly desired: DesiredCase,
    private readonly node: FolderNode,
    private readonly remote: RemoteCase,
    private readonly keepRemote: ReadonlySet<string>,
    readonly keep: string[],
    op: string | undefined,
  ) {
    this.ops = op ? [op] : NONE;
  }

  get kind(): 'case' {
    return 'case';
  }

  get ref(): { id: string } {
    return { id: this.remote.id };
  }

  get humanId(): string {
    return this.remote.humanId;
  }

  get updatedAt(): number {
    return this.remote.updatedAt;
  }

  get values(): FieldValues {
    // problems were reported when the plan was built
    const ctx: PlanContext = { ...this.ctx, problems: [] };
    let d = desiredBody(ctx, this.desired, folderRef(this.node), this.groups, false);
    if (this.keepRemote.size > 0) d = keepRemoteFields(ctx, d, this.remote, this.keepRemote);
    return { ...caseFieldValues(this.remote), ...desiredCaseFieldValues(d.body) };
  }
}

/**
 * A file whose `id:` names a case deleted on the service since the last sync. Unchanged in the
 * repository: the deletion is a change on the service (listed; `tmsync pull` removes the file).
 * Changed in the repository: a conflict; `--prefer local` creates the case again (true is
 * returned: plan its create), otherwise nothing is sent.
 */
function goneRecreated(ctx: PlanContext, m: CaseMatch, gone: BaseEntry, node: FolderNode, groups: StepGroupPlan): boolean {
  const sync = ctx.sync!;
  const dc = m.desired;
  // compared without tmsync.yaml's defaults: only what the file says
  const probe: PlanContext = { ...ctx, problems: [] };
  const local: DesiredBody = desiredBody(probe, dc, folderRef(node), groups, false);
  const changed = changedFromBase(gone, desiredCaseFieldValues(local.body));
  const item = { itemType: 'case' as const, id: gone.id, humanId: dc.id, path: node.displayPath, title: normalizeTitle(dc.title), file: dc.file };
  if (changed.length === 0) {
    sync.remoteChanges.push({ ...item, field: 'deleted', from: 'in the repository', to: 'deleted on the service' });
    return false;
  }
  sync.conflicts.push({ ...item, field: 'deleted', local: `changed in the repository: ${changed.map(fieldLabel).join(', ')}`, remote: 'deleted on the service' });
  return sync.prefer === 'local';
}

/**
 * A case file in a folder deleted on the service since the last sync (and not created again). A case
 * deleted with it is listed as any case deleted on the service; one changed in the repository, or
 * one the base does not know, cannot be planned without its folder: a problem says what to do.
 */
function inDeletedFolder(ctx: PlanContext, m: CaseMatch, node: FolderNode, groups: StepGroupPlan): void {
  const dc = m.desired;
  if (m.gone) {
    const sync = ctx.sync!;
    const probe: PlanContext = { ...ctx, problems: [] };
    const changed = changedFromBase(m.gone, desiredCaseFieldValues(desiredBody(probe, dc, { id: m.gone.id }, groups, false).body));
    const item = { itemType: 'case' as const, id: m.gone.id, humanId: dc.id, path: node.displayPath, title: normalizeTitle(dc.title), file: dc.file };
    if (changed.length === 0) {
      sync.remoteChanges.push({ ...item, field: 'deleted', from: 'in the repository', to: 'deleted on the service' });
      return;
    }
    sync.conflicts.push({ ...item, field: 'deleted', local: `changed in the repository: ${changed.map(fieldLabel).join(', ')}`, remote: 'deleted on the service (with its folder)' });
    if (sync.prefer !== 'local') return;
  }
  problem(
    ctx,
    'folder_deleted',
    dc.file,
    dc.lines.title,
    `the folder ${showPath(node.displayPath)} was deleted on the service since the last sync`,
    "`tmsync pull` takes the deletion into the files; to keep the folder, change its _folder.yaml and plan with --prefer local, or move the file",
  );
}
