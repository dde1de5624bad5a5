import { CASE_FIELDS_BY_KIND, fieldOf, impliedTemplate, setField, type CaseField } from '../fields.js';
import { itemRef, type DesiredCase, type DesiredStep, type RemoteCase } from '../model.js';
import { problem, type PlanContext } from './context.js';
import { normalizeText, normalizeTitle, sameList, sortedUnique } from '../base/normalize-text.js';
import type { CaseBody, FieldChange, Ref, StepBody } from './operations.js';
import type { LookupKind } from './resolve.js';
import { showSteps, type ShownStep } from './show.js';
import type { StepGroupPlan } from './step-groups.js';
import { assertNever } from '../assert-never.js';

/**
 * A case's desired body (names resolved to ids, `use:` expanded) and its comparison with the
 * service. Fields the file leaves out stay out of the body: they are neither sent nor compared.
 */

export interface DesiredBody {
  body: CaseBody;
  /** step groups the body depends on (create/update operation keys) */
  groupOps: string[];
  /** display labels of each individual step's group, parallel to body.individualSteps */
  stepGroupLabels: (string | undefined)[];
  /** remote ids of the existing step groups `use:` names (an empty group leaves no step behind) */
  usedGroupIds?: string[];
}

type Values = Record<string, unknown>;
const lookupKind = (f: CaseField) => f.key as LookupKind;

export function desiredBody(ctx: PlanContext, dc: DesiredCase, folder: Ref, groups: StepGroupPlan, isCreate: boolean): DesiredBody {
  const f: Values = dc.fields;
  const body: CaseBody = { title: normalizeTitle(dc.title), folder };
  const set = (field: CaseField, value: unknown) => setField(body, field, 'remote', value);
  const defaults: Values = ctx.desired.defaults;
  let shown: Pick<DesiredBody, 'stepGroupLabels' | 'groupOps' | 'usedGroupIds'> = { groupOps: [], stepGroupLabels: [] };
  for (const field of CASE_FIELDS_BY_KIND) {
    const fromFile = f[field.model];
    switch (field.kind) {
      case 'text':
        if (fromFile !== undefined) set(field, normalizeText(fromFile as string));
        break;
      case 'template': {
        const template = fromFile ?? impliedTemplate((x) => f[x.model] !== undefined, true);
        if (template !== undefined) set(field, template);
        break;
      }
      case 'lookup':
      case 'user': {
        const id = referenceId(ctx, dc, field, fromFile as string | undefined, isCreate ? (defaults[field.model] as string | undefined) : undefined, isCreate);
        if (id !== undefined) set(field, id);
        break;
      }
      case 'labels':
        if (fromFile !== undefined) {
          const ids: string[] = [];
          for (const l of fromFile as string[]) {
            const r = ctx.resolver.label(l);
            if (r.ok) ids.push(r.id);
            else if (dc.softLabels) keepLabel(ctx, l, itemRef(dc.file, dc.at));
            else problem(ctx, 'unknown_label', dc.file, dc.lines[field.key], r.error.message, r.error.hint);
          }
          set(field, sortedUnique(ids));
        }
        break;
      case 'steps':
        if (fromFile !== undefined) {
          const steps = desiredSteps(ctx, dc, fromFile as DesiredStep[], groups);
          set(field, steps.steps);
          shown = steps;
        }
        break;
      default:
        assertNever(field.kind);
    }
  }
  return { body, ...shown };
}

/**
 * A lookup or user field resolved to its id. A required field falls back to tmsync.yaml's default on
 * create and is reported when neither gives one; an optional user written empty clears it.
 */
function referenceId(ctx: PlanContext, dc: DesiredCase, field: CaseField, fromFile: string | undefined, fallback: string | undefined, isCreate: boolean): string | undefined {
  const required = field.required === true;
  const value = fromFile ?? (required ? fallback : undefined);
  if (value === undefined) {
    if (isCreate && required) {
      problem(
        ctx,
        'missing_required_field',
        dc.file,
        dc.lines.title,
        `a new case needs \`${field.key}\`, and neither the file nor tmsync.yaml defaults give one`,
        `add \`${field.key}:\` to the file or \`defaults.${field.key}\` to tmsync.yaml`,
      );
    }
    return undefined;
  }
  if (field.kind === 'user' && !required && value.trim() === '') return '';
  const r = field.kind === 'lookup' ? ctx.resolver.lookup(lookupKind(field), value) : ctx.resolver.user(value);
  if (r.ok) return r.id;
  const code = field.kind === 'lookup' ? `unknown_${field.key}` : 'unknown_user';
  // a bad default is reported at tmsync.yaml once per case that needs it; at the line otherwise
  if (fromFile !== undefined) problem(ctx, code, dc.file, dc.lines[field.key], r.error.message, r.error.hint);
  else problem(ctx, code, 'tmsync.yaml', 1, `defaults.${field.key}: ${r.error.message}`, r.error.hint);
  return undefined;
}

/** The steps of a case with every `use:` expanded into its group's steps. */
function desiredSteps(
  ctx: PlanContext,
  dc: DesiredCase,
  list: DesiredStep[],
  groups: StepGroupPlan,
): { steps: StepBody[] } & Pick<DesiredBody, 'stepGroupLabels' | 'groupOps' | 'usedGroupIds'> {
  const groupOps = new Set<string>();
  const stepGroupLabels: (string | undefined)[] = [];
  const usedGroupIds = new Set<string>();
  const steps: StepBody[] = [];
  for (const s of list) {
    if (s.kind === 'step') {
      steps.push({ description: normalizeText(s.action), expected: normalizeText(s.expected), stepGroup: null });
      stepGroupLabels.push(undefined);
      continue;
    }
    const used = groups.resolveUse(s.use);
    if (!used) {
      problem(
        ctx,
        'unknown_step_group',
        s.source?.file ?? dc.file,
        s.source?.line ?? dc.lines.steps,
        `unknown step group "${s.use}"; valid: ${groups.localKeys.length > 0 ? groups.localKeys.join(', ') : '(no step groups in the repository)'}`,
        'use the file stem of a step group under step_groups/ or its human id',
      );
      continue;
    }
    if (used.gone) {
      problem(
        ctx,
        'step_group_deleted',
        s.source?.file ?? dc.file,
        s.source?.line ?? dc.lines.steps,
        `step group "${s.use}" was deleted on the service since the last sync`,
        '`tmsync pull` takes the deletion into the files; `--prefer local` creates the group again when its file changed',
      );
      continue;
    }
    if (used.opKey) groupOps.add(used.opKey);
    if (used.remoteId) usedGroupIds.add(used.remoteId);
    for (const gs of used.steps) {
      steps.push({ description: gs.description, expected: gs.expected, stepGroup: used.ref });
      stepGroupLabels.push(used.label);
    }
  }
  return { steps, groupOps: [...groupOps], stepGroupLabels, usedGroupIds: [...usedGroupIds] };
}

function sameSteps(body: StepBody[], remote: RemoteCase): boolean {
  const r = inOrder(remote.individualSteps);
  if (r.length !== body.length) return false;
  return body.every((s, i) => {
    const rs = r[i];
    const groupId = s.stepGroup === null ? null : 'id' in s.stepGroup ? s.stepGroup.id : undefined;
    return (
      normalizeText(rs.description) === s.description &&
      normalizeText(rs.expected) === s.expected &&
      (rs.stepGroupId || null) === groupId
    );
  });
}

/** The steps by `order`: the list itself when it is in order already (as the service reports them), else a sorted copy. */
function inOrder<T extends { order: number }>(steps: readonly T[]): readonly T[] {
  for (let i = 1; i < steps.length; i++) if (steps[i - 1].order > steps[i].order) return [...steps].sort((a, b) => a.order - b.order);
  return steps;
}

function remoteShownSteps(ctx: PlanContext, remote: RemoteCase): ShownStep[] {
  const groupLabel = (id: string) => {
    const g = ctx.remote.stepGroupByRef(id);
    return g ? g.humanId || g.id : id;
  };
  return [...remote.individualSteps]
    .sort((a, b) => a.order - b.order)
    .map((s) => ({
      description: normalizeText(s.description),
      expected: normalizeText(s.expected),
      ...(s.stepGroupId ? { group: groupLabel(s.stepGroupId) } : {}),
    }));
}

function bodyShownSteps(d: { body: CaseBody; stepGroupLabels: readonly (string | undefined)[] }): ShownStep[] {
  return (d.body.individualSteps ?? []).map((s, i) => ({
    description: s.description,
    expected: s.expected,
    ...(d.stepGroupLabels[i] !== undefined ? { group: d.stepGroupLabels[i] } : {}),
  }));
}

/** Field-level differences between a desired body and the remote case (folder excluded). */
export function caseChanges(ctx: PlanContext, d: DesiredBody, remote: RemoteCase): FieldChange[] {
  const changes: FieldChange[] = [];
  if (normalizeTitle(remote.title) !== d.body.title) changes.push({ field: 'title', from: remote.title, to: d.body.title });
  for (const field of CASE_FIELDS_BY_KIND) {
    const want = fieldOf(d.body, field, 'remote');
    if (want === undefined) continue;
    const have = fieldOf(remote, field, 'remote');
    switch (field.kind) {
      case 'text':
        if (normalizeText(have as string) !== want) changes.push({ field: field.key, from: normalizeText(have as string), to: want as string });
        break;
      case 'template':
        if (have !== want) changes.push({ field: field.key, from: have as string, to: want as string });
        break;
      case 'lookup':
      case 'user':
        if (want !== (have ?? '')) changes.push({ field: field.key, from: showValue(ctx, field, have as string), to: showValue(ctx, field, want as string) });
        break;
      case 'labels':
        if (ctx.actual.labelsReadable && have !== undefined && !sameList(sortedUnique(have as string[]), want as string[])) {
          changes.push({ field: field.key, from: ctx.resolver.showLabels(have as string[]), to: ctx.resolver.showLabels(want as string[]) });
        }
        break;
      case 'steps':
        if (!sameSteps(want as StepBody[], remote)) {
          changes.push({ field: field.key, from: showSteps(remoteShownSteps(ctx, remote)), to: showSteps(bodyShownSteps(d)) });
        }
        break;
      default:
        assertNever(field.kind);
    }
  }
  return changes;
}

function showValue(ctx: { resolver: Pick<PlanContext['resolver'], 'showLookup' | 'showUser'> }, field: CaseField, id: string): string {
  return field.kind === 'lookup' ? ctx.resolver.showLookup(lookupKind(field), id) : ctx.resolver.showUser(id);
}

/** Display values of a new case's fields, for the renderers. */
export function createChanges(resolver: Pick<PlanContext['resolver'], 'showLookup' | 'showUser' | 'showLabels'>, d: { body: CaseBody; stepGroupLabels: readonly (string | undefined)[] }): FieldChange[] {
  const ctx = { resolver };
  const changes: FieldChange[] = [{ field: 'title', from: '', to: d.body.title }];
  for (const field of CASE_FIELDS_BY_KIND) {
    const value = fieldOf(d.body, field, 'remote');
    if (value === undefined) continue;
    const shown =
      field.kind === 'text' || field.kind === 'template'
        ? (value as string)
        : field.kind === 'lookup' || field.kind === 'user'
          ? showValue(ctx, field, value as string)
          : field.kind === 'labels'
            ? ctx.resolver.showLabels(value as string[])
            : showSteps(bodyShownSteps(d));
    if (shown !== '') changes.push({ field: field.key, from: '', to: shown });
  }
  return changes;
}

/**
 * The desired body with the service's value in the fields named (model names, or `title`): a change
 * made only on the service, or a conflict settled for it, is sent back as the service holds it (or
 * left out where the service holds none), never overwritten.
 */
export function keepRemoteFields(ctx: PlanContext, d: DesiredBody, remote: RemoteCase, names: ReadonlySet<string>): DesiredBody {
  const body = withRemoteCaseFields(d.body, remote, names);
  let shown: Pick<DesiredBody, 'stepGroupLabels' | 'groupOps' | 'usedGroupIds'> = { groupOps: d.groupOps, stepGroupLabels: d.stepGroupLabels, ...(d.usedGroupIds ? { usedGroupIds: d.usedGroupIds } : {}) };
  if (CASE_FIELDS_BY_KIND.some((f) => f.kind === 'steps' && names.has(f.model))) {
    const steps = [...remote.individualSteps].sort((a, b) => a.order - b.order);
    const labels = remoteShownSteps(ctx, remote).map((s) => s.group);
    const used = [...new Set(steps.flatMap((s) => (s.stepGroupId ? [s.stepGroupId] : [])))];
    shown = { groupOps: [], stepGroupLabels: labels, usedGroupIds: used };
  }
  return { body, ...shown };
}

/**
 * A case body with the service's value in the fields named (model names, or `title`), or without
 * the field where the service holds none: what `keepRemoteFields` sends, and what apply sends for
 * a field the service changed while it ran (`src/apply/recheck.ts`).
 */
export function withRemoteCaseFields(from: CaseBody, remote: RemoteCase, names: ReadonlySet<string>): CaseBody {
  const body: CaseBody = { ...from };
  if (names.has('title')) body.title = normalizeTitle(remote.title);
  for (const field of CASE_FIELDS_BY_KIND) {
    if (!names.has(field.model)) continue;
    const have = fieldOf<unknown>(remote, field, 'remote');
    const set = (value: unknown) => setField(body, field, 'remote', value);
    const drop = () => delete (body as unknown as Record<string, unknown>)[field.remote];
    switch (field.kind) {
      case 'text':
        set(normalizeText(have as string | undefined));
        break;
      case 'template':
      case 'lookup':
        if (have) set(have);
        else drop();
        break;
      case 'user':
        if (have) set(have);
        else if (field.required) drop();
        else set('');
        break;
      case 'labels':
        if (have !== undefined) set(sortedUnique(have as string[]));
        else drop();
        break;
      case 'steps':
        set(
          [...remote.individualSteps]
            .sort((a, b) => a.order - b.order)
            .map((s): StepBody => ({ description: normalizeText(s.description), expected: normalizeText(s.expected), stepGroup: s.stepGroupId ? { id: s.stepGroupId } : null })),
        );
        break;
      default:
        assertNever(field.kind);
    }
  }
  return body;
}

/** A label a `softLabels` case names and the service lacks: left out of the body, counted for the plan's warning. */
function keepLabel(ctx: PlanContext, label: string, ref: string): void {
  const map = (ctx.keptLabels ??= new Map<string, Set<string>>());
  let cases = map.get(label);
  if (!cases) map.set(label, (cases = new Set()));
  cases.add(ref);
}
