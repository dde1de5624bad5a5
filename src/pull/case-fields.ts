import { belongsTo, CASE_FIELDS, fieldOf, setField, STEP_GROUP_FIELDS, type StepGroupFieldValues } from '../fields.js';
import type { DesiredCaseFields, DesiredStep, RemoteCase, RemoteGroupStep, RemoteStep, RemoteStepGroup } from '../model.js';
import { normalizeText } from '../base/normalize-text.js';
import type { LookupKind, Resolver } from '../plan/resolve.js';
import { assertNever } from '../assert-never.js';

/**
 * Remote items → the fields a repository file holds: ids turned back into names (lookup names,
 * user emails, label names) and runs of step-group steps folded back into `use:`.
 *
 * A name is written only when it resolves back to the same id (names are matched
 * case-insensitively and aliases also count, so two entries may share a spelling); otherwise
 * the id itself is written, which always resolves. Either way `pull` then `plan` sees no change.
 */

export interface FieldWarning {
  code: string;
  message: string;
}

export interface FieldContext {
  resolver: Resolver;
  stepGroups: ReadonlyMap<string, RemoteStepGroup>;
  /** step group id → what `use:` should say (the local key) */
  useName: (groupId: string) => string | undefined;
  /** false when the service did not report labels of cases: `labels:` is left out */
  labelsReadable: boolean;
}

/** The name of a lookup id when it maps back to the same id; the id otherwise. */
function lookupName(resolver: Resolver, kind: LookupKind, id: string): string {
  const name = resolver.showLookup(kind, id);
  const back = resolver.lookup(kind, name);
  return back.ok && back.id === id ? name : id;
}

function userName(resolver: Resolver, id: string): string {
  const email = resolver.showUser(id);
  const back = resolver.user(email);
  return back.ok && back.id === id ? email : id;
}

function labelNames(resolver: Resolver, ids: readonly string[]): string[] {
  return ids.map((id) => {
    const name = resolver.showLabels([id]);
    const back = resolver.label(name);
    return back.ok && back.id === id ? name : id;
  });
}

const sameStep = (a: { description: string; expected: string }, b: { description: string; expected: string }) =>
  normalizeText(a.description) === normalizeText(b.description) && normalizeText(a.expected) === normalizeText(b.expected);

/**
 * Individual steps → repository steps. A run of consecutive steps carrying one step group id
 * becomes `use:` when it is the group's steps (once or several times over); a run that does not
 * match the group (edited since, or the group is gone) stays as plain steps, with a warning,
 * because a `use:` would change the case.
 */
function foldSteps(
  steps: readonly RemoteStep[],
  ctx: Pick<FieldContext, 'stepGroups' | 'useName'>,
  where: string,
): { steps: DesiredStep[]; warnings: FieldWarning[] } {
  const sorted = [...steps].sort((a, b) => a.order - b.order);
  const out: DesiredStep[] = [];
  const warnings: FieldWarning[] = [];
  let i = 0;
  while (i < sorted.length) {
    const gid = sorted[i].stepGroupId;
    if (!gid) {
      out.push({ kind: 'step', action: sorted[i].description, expected: sorted[i].expected });
      i += 1;
      continue;
    }
    let j = i;
    while (j < sorted.length && sorted[j].stepGroupId === gid) j += 1;
    const run = sorted.slice(i, j);
    const group = ctx.stepGroups.get(gid);
    const use = group ? ctx.useName(gid) : undefined;
    const n = group?.steps.length ?? 0;
    const groupSteps = group ? [...group.steps].sort((a, b) => a.order - b.order) : [];
    const folds =
      group !== undefined &&
      use !== undefined &&
      n > 0 &&
      run.length % n === 0 &&
      run.every((s, k) => sameStep(s, groupSteps[k % n]));
    if (folds) {
      for (let k = 0; k < run.length / n; k += 1) out.push({ kind: 'use', use: use });
    } else {
      warnings.push({
        code: 'unfoldable_steps',
        message: group
          ? `${where}: ${run.length} step${run.length === 1 ? '' : 's'} from step group ${group.humanId || gid} no longer match the group's steps; written as plain steps`
          : `${where}: ${run.length} step${run.length === 1 ? '' : 's'} refer to a step group (${gid}) the service no longer has; written as plain steps`,
      });
      for (const s of run) out.push({ kind: 'step', action: s.description, expected: s.expected });
    }
    i = j;
  }
  return { steps: out, warnings };
}

/** The template a case is written with: TCD stays TCD, anything else is a list of steps. */
export function caseTemplate(c: RemoteCase): 'STEPS' | 'TCD' {
  return c.templateType.toUpperCase() === 'TCD' ? 'TCD' : 'STEPS';
}

/**
 * Every field of a remote case as a repository writes it. Empty texts and empty references are
 * left out: an absent field means "leave it as the service has it", which is exactly what it is.
 */
export function remoteCaseFields(c: RemoteCase, ctx: FieldContext, where: string): { fields: DesiredCaseFields; warnings: FieldWarning[] } {
  const { resolver } = ctx;
  const fields: DesiredCaseFields = {};
  let warnings: FieldWarning[] = [];
  const template = caseTemplate(c);
  for (const f of CASE_FIELDS) {
    // a field of the other template is not written; the one implying the case's template always is
    if (!belongsTo(f, template)) continue;
    const value = fieldOf<unknown>(c, f, 'remote');
    const set = (v: unknown) => setField(fields, f, 'model', v);
    switch (f.kind) {
      case 'text':
        if (f.implies) set(value ?? '');
        else if (value) set(value);
        break;
      case 'template':
        set(template);
        break;
      case 'lookup':
        if (value) set(lookupName(resolver, f.key as LookupKind, value as string));
        break;
      case 'user':
        if (value) set(userName(resolver, value as string));
        break;
      case 'labels':
        if (ctx.labelsReadable && value && (value as string[]).length > 0) set(labelNames(resolver, value as string[]));
        break;
      case 'steps': {
        const folded = foldSteps(value as RemoteStep[], ctx, where);
        set(folded.steps);
        warnings = folded.warnings;
        break;
      }
      default:
        assertNever(f.kind);
    }
  }
  return { fields, warnings };
}

/** The fields of a step group file as pull writes them, named by the step group table. */
export type GroupFileFields = StepGroupFieldValues<'model', { text: string; labels: string[]; steps: { action: string; expected: string }[] }, 'text' | 'labels'>;

/** A step group's fields as a repository writes them: an empty text left out, label ids as names, steps in order. */
export function remoteGroupFields(g: RemoteStepGroup, resolver: Resolver, labelsReadable: boolean): GroupFileFields {
  const fields = {} as GroupFileFields;
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'remote');
    switch (f.kind) {
      case 'text':
        if (value) setField(fields, f, 'model', value);
        break;
      case 'labels':
        if (labelsReadable && value && (value as string[]).length > 0) setField(fields, f, 'model', labelNames(resolver, value as string[]));
        break;
      case 'steps':
        setField(fields, f, 'model', [...(value as RemoteGroupStep[])].sort((a, b) => a.order - b.order).map((s) => ({ action: s.description, expected: s.expected })));
        break;
      default:
        assertNever(f.kind);
    }
  }
  return fields;
}
