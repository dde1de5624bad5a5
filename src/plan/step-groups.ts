import { itemRef } from '../model.js';
import { fieldOf, setField, STEP_GROUP_FIELDS } from '../fields.js';
import type { DesiredGroupStep, DesiredStepGroup, RemoteGroupStep, RemoteStepGroup } from '../model.js';
import { claimById, foundElsewhere, problem, type PlanContext } from './context.js';
import { normalizeText, normalizeTitle, sameList, sortedUnique } from '../base/normalize-text.js';
import { matchNaturalKeys } from './natural-key.js';
import type { FieldChange, GroupStepBody, Operation, Ref, StepGroupBody } from './operations.js';
import { showSteps } from './show.js';
import { desiredStepGroupFieldValues, fieldLabel, groupStepName, isListField, stepGroupFieldValues, type FieldValues } from '../base/field-values.js';
import { baseEntryFor, mergeItem } from './sync.js';
import type { BaseEntry } from '../base/base.js';
import { changedFromBase } from '../base/field-values.js';
import { assertNever } from '../assert-never.js';

/** What a `use:` step stands for: the group's steps and how to reference the group. */
export interface UsedGroup {
  ref: Ref;
  /** for display: human id, or the local key of a group to be created */
  label: string;
  steps: { description: string; expected: string }[];
  /** the create/update operation the using cases must wait for */
  opKey?: string;
  /** the remote id when the group exists */
  remoteId?: string;
  /** deleted on the service since the last sync, and not created again: a case cannot use it */
  gone?: boolean;
}

export interface StepGroupPlan {
  ops: Operation[];
  /** remote step group ids the repository claims */
  claimed: Set<string>;
  /** resolves a `use:` value (local key, human id or id); undefined when unknown */
  resolveUse(value: string): UsedGroup | undefined;
  /** the local keys, for messages */
  localKeys: string[];
}

interface GroupMatch {
  desired: DesiredStepGroup;
  remote?: RemoteStepGroup;
  adopted: boolean;
  /** identity could not be settled (a problem says why): no operation is planned for it */
  failed?: boolean;
  /** its `id:` names a step group the service no longer has, which the sync base recorded */
  gone?: BaseEntry;
}

function matchGroups(ctx: PlanContext): GroupMatch[] {
  const matches: GroupMatch[] = ctx.desired.stepGroups.map((desired) => ({ desired, adopted: false }));
  const claimedBy = new Map<string, GroupMatch>();
  for (const m of matches) {
    const id = m.desired.id;
    if (id === undefined) continue;
    const gone = ctx.sync && !ctx.partialStepGroups && !ctx.remote.stepGroupByRef(id) && !foundElsewhere(ctx, id) ? baseEntryFor(ctx.sync, 'step_group', id) : undefined;
    if (gone) {
      m.gone = gone;
      continue;
    }
    const remote = claimById(ctx, claimedBy, (o) => o.desired.file, {
      claimant: m,
      id,
      remote: ctx.remote.stepGroupByRef(id),
      label: `step group "${m.desired.title}"`,
      noun: 'step group',
      file: m.desired.file,
      line: m.desired.lines.id,
    });
    if (!remote) {
      m.failed = true;
      continue;
    }
    m.remote = remote;
  }
  // natural key: the title, among the step groups no id claims
  matchNaturalKeys(matches, claimedBy, {
    scopeOf: (m) => (m.desired.id === undefined ? 'all' : undefined),
    remotesIn: () => ctx.actual.stepGroups,
    itemKey: (m) => normalizeTitle(m.desired.title),
    remoteKey: (g) => normalizeTitle(g.title),
    onAmbiguous: (m, candidates) => {
      problem(
        ctx,
        'ambiguous_match',
        m.desired.file,
        m.desired.lines.title,
        `step group "${m.desired.title}" matches ${candidates.length} step groups on the service: ${candidates.map((c) => c.humanId || c.id).join(', ')}`,
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
        `step groups ${other.desired.file} and ${m.desired.file} both match ${remote.humanId || remote.id} "${remote.title}"`,
        'give the step groups different titles, or add `id:` to one of them',
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

/** A step group's desired body, field by field as the step group table says (labels resolved to ids). */
function groupBody(ctx: PlanContext, g: DesiredStepGroup): StepGroupBody {
  const body = { title: normalizeTitle(g.title), steps: [] } as StepGroupBody;
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'model');
    switch (f.kind) {
      case 'text':
        if (value !== undefined) setField(body, f, 'remote', normalizeText(value as string));
        break;
      case 'labels':
        if (value !== undefined) {
          const ids: string[] = [];
          for (const l of value as string[]) {
            const r = ctx.resolver.label(l);
            if (r.ok) ids.push(r.id);
            else problem(ctx, 'unknown_label', g.file, g.lines[f.key], r.error.message, r.error.hint);
          }
          setField(body, f, 'remote', sortedUnique(ids));
        }
        break;
      case 'steps':
        setField(body, f, 'remote', (value as DesiredGroupStep[]).map((s) => ({ description: normalizeText(s.action), expected: normalizeText(s.expected) })));
        break;
      default:
        assertNever(f.kind);
    }
  }
  return body;
}

const inOrder = (steps: readonly RemoteGroupStep[]): GroupStepBody[] =>
  [...steps].sort((a, b) => a.order - b.order).map((s) => ({ description: normalizeText(s.description), expected: normalizeText(s.expected) }));

function sameGroupSteps(a: readonly GroupStepBody[], b: readonly GroupStepBody[]): boolean {
  return a.length === b.length && a.every((s, i) => s.description === b[i].description && s.expected === b[i].expected);
}

function groupChanges(ctx: PlanContext, body: StepGroupBody, remote: RemoteStepGroup): FieldChange[] {
  const changes: FieldChange[] = [];
  if (normalizeTitle(remote.title) !== body.title) changes.push({ field: 'title', from: remote.title, to: body.title });
  for (const f of STEP_GROUP_FIELDS) {
    const w = fieldOf<unknown>(body, f, 'remote');
    const h = fieldOf<unknown>(remote, f, 'remote');
    switch (f.kind) {
      case 'text':
        if (w !== undefined && normalizeText(h as string) !== w) changes.push({ field: f.key, from: normalizeText(h as string), to: w as string });
        break;
      case 'labels':
        if (w !== undefined && h !== undefined && !sameList(sortedUnique(h as string[]), w as string[])) {
          changes.push({ field: f.key, from: ctx.resolver.showLabels(h as string[]), to: ctx.resolver.showLabels(w as string[]) });
        }
        break;
      case 'steps': {
        const remoteSteps = inOrder(h as RemoteGroupStep[]);
        if (!sameGroupSteps(remoteSteps, w as GroupStepBody[])) changes.push({ field: f.key, from: showSteps(remoteSteps), to: showSteps(w as GroupStepBody[]) });
        break;
      }
      default:
        assertNever(f.kind);
    }
  }
  return changes;
}

/** Matches step groups (project-wide), plans their creates, updates and adopts. */
export function planStepGroups(ctx: PlanContext): StepGroupPlan {
  const matches = matchGroups(ctx);
  const ops: Operation[] = [];
  const byUse = new Map<string, UsedGroup>();
  for (const m of matches) {
    const g = m.desired;
    let body = groupBody(ctx, g);
    let used: UsedGroup;
    const recreate = m.gone ? goneRecreated(ctx, g, m.gone, body) : false;
    if (m.failed || (m.gone && !recreate)) {
      // keep `use:` of it resolvable so the one problem is not echoed by every case using it
      used = { ref: { id: g.id ?? g.key }, label: g.id ?? g.key, steps: body.steps, ...(m.gone ? { gone: true } : {}) };
    } else if (!m.remote) {
      const key = `create_step_group:${g.key}`;
      if (ctx.sync?.collect) ctx.sync.records.push({ kind: 'step_group', ref: { op: key }, ops: [key], values: desiredStepGroupFieldValues(body), keep: [] });
      if (m.gone && ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'step_group', id: m.gone.id, op: key });
      ops.push({
        kind: 'create_step_group',
        key,
        dependsOn: [],
        localKey: g.key,
        body,
        writeBack: { file: itemRef(g.file, g.at) },
        changes: createChanges(ctx, body),
      });
      used = { ref: { op: key }, label: g.key, steps: body.steps, opKey: key };
    } else {
      const remote = m.remote;
      const remoteValues = stepGroupFieldValues(remote);
      let keepBase: string[] = [];
      if (ctx.sync && !ctx.partialStepGroups) {
        const desired = body;
        let twoWay: FieldChange[] | undefined;
        const local = desiredStepGroupFieldValues(body);
        const merge = mergeItem(
          ctx.sync,
          { itemType: 'step_group', id: remote.id, humanId: remote.humanId, path: [], title: body.title, file: g.file },
          'step_group',
          local,
          remoteValues,
          (name) => (isListField(name) ? { field: fieldLabel(name), from: showStep(remoteValues[name]), to: showStep(local[name]) } : (twoWay ??= groupChanges(ctx, desired, remote)).find((c) => c.field === name)),
        );
        if (merge.keepRemote.size > 0) body = keepRemoteGroupFields(body, remote, merge.keepRemote);
        keepBase = merge.keepBase;
      }
      const changes = groupChanges(ctx, body, remote);
      const writeBack = m.adopted ? { file: itemRef(g.file, g.at), id: remote.humanId || remote.id } : undefined;
      const record = (op?: string) => {
        const synced = body;
        if (ctx.sync?.collect) ctx.sync.records.push({
          kind: 'step_group',
          ref: { id: remote.id },
          humanId: remote.humanId,
          ops: op ? [op] : [],
          updatedAt: remote.updatedAt,
          get values() {
            const kept: FieldValues = Object.fromEntries(Object.entries(remoteValues).filter(([n]) => !isListField(n)));
            return { ...kept, ...desiredStepGroupFieldValues(synced) };
          },
          keep: keepBase,
        });
      };
      let opKey: string | undefined;
      if (changes.length > 0) {
        opKey = `update_step_group:${g.key}`;
        record(opKey);
        ops.push({
          kind: 'update_step_group',
          key: opKey,
          dependsOn: [],
          id: remote.id,
          humanId: remote.humanId,
          localKey: g.key,
          body,
          changes,
          ...(writeBack ? { writeBack } : {}),
        });
      } else if (writeBack) {
        record(`adopt_step_group:${g.key}`);
        ops.push({
          kind: 'adopt',
          key: `adopt_step_group:${g.key}`,
          dependsOn: [],
          itemType: 'step_group',
          id: remote.id,
          humanId: remote.humanId,
          path: [],
          title: body.title,
          writeBack,
        });
      } else {
        record();
      }
      used = { ref: { id: remote.id }, label: remote.humanId || g.key, steps: body.steps, opKey, remoteId: remote.id };
    }
    byUse.set(`k:${g.key}`, used);
    if (g.id !== undefined) byUse.set(`r:${g.id.trim().toUpperCase()}`, used);
    if (m.remote) {
      byUse.set(`r:${m.remote.id.toUpperCase()}`, used);
      if (m.remote.humanId) byUse.set(`r:${m.remote.humanId.toUpperCase()}`, used);
    }
  }
  const resolveUse = (value: string): UsedGroup | undefined => {
    const v = value.trim();
    const local = byUse.get(`k:${v}`) ?? byUse.get(`r:${v.toUpperCase()}`);
    if (local) return local;
    const remote = ctx.remote.stepGroupByRef(v);
    if (!remote) return undefined;
    return {
      ref: { id: remote.id },
      label: remote.humanId || remote.id,
      remoteId: remote.id,
      steps: inOrder(remote.steps),
    };
  };
  const claimed = new Set(matches.filter((m) => m.remote).map((m) => m.remote!.id));
  return { ops, claimed, resolveUse, localKeys: matches.map((m) => m.desired.key) };
}

function createChanges(ctx: PlanContext, body: StepGroupBody): FieldChange[] {
  const changes: FieldChange[] = [{ field: 'title', from: '', to: body.title }];
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(body, f, 'remote');
    if (value === undefined) continue;
    const shown =
      f.kind === 'text' ? (value as string) : f.kind === 'labels' ? ctx.resolver.showLabels(value as string[]) : showSteps(value as GroupStepBody[]);
    if (shown !== '') changes.push({ field: f.key, from: '', to: shown });
  }
  return changes;
}

/** A step of a group for people: its action, and what it expects on the next line. */
function showStep(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = value as { description: string; expected: string };
  return s.expected === '' ? s.description : `${s.description}\nexpect: ${s.expected}`;
}

/** The body with the service's value in the fields named (`title`, the table's fields by model name, `step.N`). */
export function keepRemoteGroupFields(body: StepGroupBody, remote: RemoteStepGroup, names: ReadonlySet<string>): StepGroupBody {
  const out: StepGroupBody = { ...body };
  if (names.has('title')) out.title = normalizeTitle(remote.title);
  for (const f of STEP_GROUP_FIELDS) {
    const have = fieldOf<unknown>(remote, f, 'remote');
    switch (f.kind) {
      case 'text':
        if (names.has(f.model)) setField(out, f, 'remote', normalizeText(have as string | undefined));
        break;
      case 'labels':
        if (names.has(f.model) && have !== undefined) setField(out, f, 'remote', sortedUnique(have as string[]));
        break;
      case 'steps': {
        const remoteSteps = inOrder(have as RemoteGroupStep[]);
        const local = (fieldOf<GroupStepBody[]>(body, f, 'remote') ?? []);
        const steps: GroupStepBody[] = [];
        for (let i = 0; i < Math.max(local.length, remoteSteps.length); i++) {
          const s = names.has(groupStepName(i)) ? remoteSteps[i] : local[i];
          if (s) steps.push(s);
        }
        setField(out, f, 'remote', steps);
        break;
      }
      default:
        assertNever(f.kind);
    }
  }
  return out;
}

/**
 * A step group file whose `id:` names a group deleted on the service since the last sync.
 * Unchanged in the repository: a change on the service (listed). Changed: a conflict;
 * `--prefer local` creates the group again (true: plan its create).
 */
function goneRecreated(ctx: PlanContext, g: DesiredStepGroup, gone: BaseEntry, body: StepGroupBody): boolean {
  const sync = ctx.sync!;
  const changed = changedFromBase(gone, desiredStepGroupFieldValues(body));
  const item = { itemType: 'step_group' as const, id: gone.id, ...(g.id ? { humanId: g.id } : {}), path: [], title: body.title, file: g.file };
  if (changed.length === 0) {
    sync.remoteChanges.push({ ...item, field: 'deleted', from: 'in the repository', to: 'deleted on the service' });
    return false;
  }
  sync.conflicts.push({ ...item, field: 'deleted', local: `changed in the repository: ${changed.map(fieldLabel).join(', ')}`, remote: 'deleted on the service' });
  return sync.prefer === 'local';
}
