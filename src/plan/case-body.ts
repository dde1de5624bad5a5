import type { DesiredCase, RemoteCase } from '../model.js';
import { problem, type PlanContext } from './context.js';
import { normalizeText, normalizeTitle, sameList, sortedUnique } from './normalize.js';
import type { CaseBody, FieldChange, Ref, StepBody } from './operations.js';
import type { LookupKind } from './resolve.js';
import { showSteps, type ShownStep } from './show.js';
import type { StepGroupPlan } from './step-groups.js';

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

const LOOKUP_FIELDS: { kind: LookupKind; field: keyof DesiredCase['fields']; bodyKey: 'typeId' | 'statusId' | 'priorityId' | 'automationTypeId'; remoteKey: keyof RemoteCase }[] = [
  { kind: 'type', field: 'type', bodyKey: 'typeId', remoteKey: 'typeId' },
  { kind: 'status', field: 'status', bodyKey: 'statusId', remoteKey: 'statusId' },
  { kind: 'priority', field: 'priority', bodyKey: 'priorityId', remoteKey: 'priorityId' },
  { kind: 'automation_type', field: 'automationType', bodyKey: 'automationTypeId', remoteKey: 'automationTypeId' },
];

export function desiredBody(ctx: PlanContext, dc: DesiredCase, folder: Ref, groups: StepGroupPlan, isCreate: boolean): DesiredBody {
  const f = dc.fields;
  const body: CaseBody = { title: normalizeTitle(dc.title), folder };
  const groupOps = new Set<string>();
  const stepGroupLabels: (string | undefined)[] = [];
  const usedGroupIds = new Set<string>();
  if (f.description !== undefined) body.description = normalizeText(f.description);
  if (f.preconditions !== undefined) body.preconditions = normalizeText(f.preconditions);
  const template = f.template ?? (f.steps !== undefined ? 'STEPS' : f.stepsText !== undefined ? 'TCD' : undefined);
  if (template !== undefined) body.templateType = template;
  if (f.stepsText !== undefined) body.steps = normalizeText(f.stepsText);
  if (f.expectedResults !== undefined) body.expectedResults = normalizeText(f.expectedResults);

  const defaults = ctx.desired.defaults;
  for (const l of LOOKUP_FIELDS) {
    const fromFile = f[l.field] as string | undefined;
    const value = fromFile ?? (isCreate ? defaults[l.field as keyof typeof defaults] : undefined);
    if (value === undefined) {
      if (isCreate) {
        problem(
          ctx,
          'missing_required_field',
          dc.file,
          dc.lines.title,
          `a new case needs \`${l.kind}\`, and neither the file nor tmsync.yaml defaults give one`,
          `add \`${l.kind}:\` to the file or \`defaults.${l.kind}\` to tmsync.yaml`,
        );
      }
      continue;
    }
    const r = ctx.resolver.lookup(l.kind, value);
    // a bad default is reported at tmsync.yaml once per case that needs it; at the line otherwise
    if (r.ok) body[l.bodyKey] = r.id;
    else if (fromFile !== undefined) problem(ctx, `unknown_${l.kind}`, dc.file, dc.lines[l.kind], r.error.message, r.error.hint);
    else problem(ctx, `unknown_${l.kind}`, 'tmsync.yaml', 1, `defaults.${l.kind}: ${r.error.message}`, r.error.hint);
  }
  const owner = f.owner ?? (isCreate ? defaults.owner : undefined);
  if (owner === undefined) {
    if (isCreate) {
      problem(ctx, 'missing_required_field', dc.file, dc.lines.title, 'a new case needs `owner`, and neither the file nor tmsync.yaml defaults give one', 'add `owner:` to the file or `defaults.owner` to tmsync.yaml');
    }
  } else {
    const r = ctx.resolver.user(owner);
    if (r.ok) body.ownerId = r.id;
    else if (f.owner !== undefined) problem(ctx, 'unknown_user', dc.file, dc.lines.owner, r.error.message, r.error.hint);
    else problem(ctx, 'unknown_user', 'tmsync.yaml', 1, `defaults.owner: ${r.error.message}`, r.error.hint);
  }
  if (f.reviewer !== undefined) {
    if (f.reviewer.trim() === '') body.reviewerId = '';
    else {
      const r = ctx.resolver.user(f.reviewer);
      if (r.ok) body.reviewerId = r.id;
      else problem(ctx, 'unknown_user', dc.file, dc.lines.reviewer, r.error.message, r.error.hint);
    }
  }
  if (f.labels !== undefined) {
    const ids: string[] = [];
    for (const l of f.labels) {
      const r = ctx.resolver.label(l);
      if (r.ok) ids.push(r.id);
      else problem(ctx, 'unknown_label', dc.file, dc.lines.labels, r.error.message, r.error.hint);
    }
    body.labelIds = sortedUnique(ids);
  }
  if (f.steps !== undefined) {
    const steps: StepBody[] = [];
    for (const s of f.steps) {
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
      if (used.opKey) groupOps.add(used.opKey);
      if (used.remoteId) usedGroupIds.add(used.remoteId);
      for (const gs of used.steps) {
        steps.push({ description: gs.description, expected: gs.expected, stepGroup: used.ref });
        stepGroupLabels.push(used.label);
      }
    }
    body.individualSteps = steps;
  }
  return { body, groupOps: [...groupOps], stepGroupLabels, ...(f.steps !== undefined ? { usedGroupIds: [...usedGroupIds] } : {}) };
}

function sameSteps(body: StepBody[], remote: RemoteCase): boolean {
  const r = [...remote.individualSteps].sort((a, b) => a.order - b.order);
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

export function bodyShownSteps(d: DesiredBody): ShownStep[] {
  return (d.body.individualSteps ?? []).map((s, i) => ({
    description: s.description,
    expected: s.expected,
    ...(d.stepGroupLabels[i] !== undefined ? { group: d.stepGroupLabels[i] } : {}),
  }));
}

/** Field-level differences between a desired body and the remote case (folder excluded). */
export function caseChanges(ctx: PlanContext, d: DesiredBody, remote: RemoteCase): FieldChange[] {
  const b = d.body;
  const changes: FieldChange[] = [];
  const text = (field: string, want: string | undefined, have: string) => {
    if (want !== undefined && normalizeText(have) !== want) changes.push({ field, from: normalizeText(have), to: want });
  };
  if (normalizeTitle(remote.title) !== b.title) changes.push({ field: 'title', from: remote.title, to: b.title });
  text('description', b.description, remote.description);
  text('preconditions', b.preconditions, remote.preconditions);
  if (b.templateType !== undefined && remote.templateType !== b.templateType) {
    changes.push({ field: 'template', from: remote.templateType, to: b.templateType });
  }
  text('steps', b.steps, remote.steps);
  text('expected_results', b.expectedResults, remote.expectedResults);
  for (const l of LOOKUP_FIELDS) {
    const want = b[l.bodyKey] as string | undefined;
    const have = remote[l.remoteKey] as string;
    if (want !== undefined && want !== have) {
      changes.push({ field: l.kind, from: ctx.resolver.showLookup(l.kind, have), to: ctx.resolver.showLookup(l.kind, want) });
    }
  }
  if (b.ownerId !== undefined && b.ownerId !== remote.ownerId) {
    changes.push({ field: 'owner', from: ctx.resolver.showUser(remote.ownerId), to: ctx.resolver.showUser(b.ownerId) });
  }
  if (b.reviewerId !== undefined && b.reviewerId !== (remote.reviewerId ?? '')) {
    changes.push({ field: 'reviewer', from: ctx.resolver.showUser(remote.reviewerId), to: ctx.resolver.showUser(b.reviewerId) });
  }
  if (b.labelIds !== undefined && ctx.actual.labelsReadable && remote.labelIds !== undefined) {
    if (!sameList(sortedUnique(remote.labelIds), b.labelIds)) {
      changes.push({ field: 'labels', from: ctx.resolver.showLabels(remote.labelIds), to: ctx.resolver.showLabels(b.labelIds) });
    }
  }
  if (b.individualSteps !== undefined && !sameSteps(b.individualSteps, remote)) {
    changes.push({ field: 'steps', from: showSteps(remoteShownSteps(ctx, remote)), to: showSteps(bodyShownSteps(d)) });
  }
  return changes;
}

/** Display values of a new case's fields, for the renderers. */
export function createChanges(ctx: PlanContext, d: DesiredBody): FieldChange[] {
  const b = d.body;
  const changes: FieldChange[] = [{ field: 'title', from: '', to: b.title }];
  const add = (field: string, value: string | undefined) => {
    if (value !== undefined && value !== '') changes.push({ field, from: '', to: value });
  };
  add('description', b.description);
  add('preconditions', b.preconditions);
  add('template', b.templateType);
  add('steps', b.steps);
  add('expected_results', b.expectedResults);
  for (const l of LOOKUP_FIELDS) {
    const id = b[l.bodyKey] as string | undefined;
    if (id !== undefined) add(l.kind, ctx.resolver.showLookup(l.kind, id));
  }
  if (b.ownerId !== undefined) add('owner', ctx.resolver.showUser(b.ownerId));
  if (b.reviewerId !== undefined) add('reviewer', ctx.resolver.showUser(b.reviewerId));
  if (b.labelIds !== undefined) add('labels', ctx.resolver.showLabels(b.labelIds));
  if (b.individualSteps !== undefined) add('steps', showSteps(bodyShownSteps(d)));
  return changes;
}
