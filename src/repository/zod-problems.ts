import type { z } from 'zod';
import type { Problem } from '../errors.js';
import { didYouMean } from '../did-you-mean.js';
import {
  describeValue,
  locate,
  posOf,
  problemAt,
  sourceOf,
  valueAt,
  type ParsedYaml,
  type Position,
  type YamlPath,
} from './yaml-source.js';

/** What is being checked, for messages that depend on it (a `use:` in a step group, …). */
type FileKind = 'case' | 'step_group' | 'folder' | 'config';

/** Human wording of the names zod uses for expected types. */
const EXPECTED: Record<string, string> = {
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

type AnyDef = { type: string; [k: string]: unknown };
const defOf = (s: unknown): AnyDef => (s as { _zod: { def: AnyDef } })._zod.def;

/** Zod schemas reachable at a path (unions fan out), optional/default wrappers removed. */
function schemasAt(schema: z.ZodType, path: YamlPath): z.ZodType[] {
  let current: unknown[] = [schema];
  const unwrap = (list: unknown[]): unknown[] =>
    list.flatMap((s) => {
      const d = defOf(s);
      if (d.type === 'optional' || d.type === 'default' || d.type === 'nullable') return unwrap([d.innerType]);
      if (d.type === 'union') return unwrap(d.options as unknown[]);
      return [s];
    });
  current = unwrap(current);
  for (const seg of path) {
    const next: unknown[] = [];
    for (const s of current) {
      const d = defOf(s);
      if (d.type === 'object' && typeof seg === 'string') {
        const shape = d.shape as Record<string, unknown>;
        if (shape[seg]) next.push(shape[seg]);
      } else if (d.type === 'array' && typeof seg === 'number') next.push(d.element);
      else if (d.type === 'record' && typeof seg === 'string') next.push(d.valueType);
    }
    current = unwrap(next);
  }
  return current as z.ZodType[];
}

function allowedKeys(schema: z.ZodType, path: YamlPath): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path)) {
    const d = defOf(s);
    if (d.type === 'object') for (const k of Object.keys(d.shape as object)) keys.add(k);
  }
  return [...keys];
}

/** `title`, `a labels item`, … */
function fieldName(path: YamlPath): string {
  if (path.length === 0) return 'the file';
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const owner = [...path].reverse().find((s) => typeof s === 'string');
    if (owner === 'steps') return 'a step';
    return owner === undefined ? 'an item' : `a \`${owner}\` item`;
  }
  return `\`${last}\``;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Turns zod issues into `file:line:col` problems with hints, positioned on the YAML nodes the
 * issue paths point at. Unions are resolved to the branch the user meant (the one whose own
 * type matched, and for steps the one whose keys the item uses) so a typo in `expected` reads
 * as a typo, not as "invalid input".
 */
export function zodProblems(p: ParsedYaml, issues: readonly z.core.$ZodIssue[], schema: z.ZodType, kind: FileKind): Problem[] {
  const ctx: IssueContext = { p, schema, kind, out: [] };
  for (const issue of issues) addIssue(ctx, issue, []);
  return ctx.out;
}

/** What turning one file's issues into problems shares. */
interface IssueContext {
  p: ParsedYaml;
  schema: z.ZodType;
  kind: FileKind;
  out: Problem[];
}

/** Where an issue points: its full path, the value there, the YAML nodes, and its position. */
interface IssueAt {
  path: YamlPath;
  value: unknown;
  loc: ReturnType<typeof locate>;
  at: (node?: Parameters<typeof posOf>[1]) => Position;
}

function addIssue(ctx: IssueContext, issue: z.core.$ZodIssue, base: YamlPath): void {
  const { p, out } = ctx;
  const path: YamlPath = [...base, ...(issue.path as (string | number)[])];
  const loc = locate(p.root, path);
  const where: IssueAt = { path, value: valueAt(p.data, path), loc, at: (node = loc.node ?? loc.keyNode ?? loc.nearest) => posOf(p, node) };
  const { value, at } = where;
  switch (issue.code) {
    case 'unrecognized_keys':
      unknownKeys(ctx, issue.keys, where);
      return;
    case 'invalid_union':
      unionProblems(ctx, issue.errors, where);
      return;
    case 'invalid_type':
      typeIssue(ctx, issue.expected, where);
      return;
    case 'invalid_format': {
      const last = path[path.length - 1];
      const name = fieldName(path);
      if (issue.format === 'regex' && issue.message === 'must not be empty') {
        out.push(problemAt(p, at(), last === 'title' ? 'empty_title' : 'empty_value', `${name} must not be empty`));
      } else if (last === 'id') {
        out.push(problemAt(p, at(), 'invalid_id', `\`id\` ${quote(value)} ${issue.message}`, 'remove the line to create a new item; apply writes the id back'));
      } else {
        out.push(problemAt(p, at(), 'invalid_value', `${name} ${issue.message.startsWith('Invalid') ? 'has the wrong format' : issue.message}`));
      }
      return;
    }
    case 'invalid_value': {
      const values = issue.values.map(String);
      const guess = typeof value === 'string' ? didYouMean(value, values) : undefined;
      out.push(problemAt(p, at(), 'invalid_value', `${fieldName(path)} must be one of ${values.join(', ')}, not ${quote(value)}`, guess ? `did you mean \`${guess}\`?` : undefined));
      return;
    }
    case 'too_small': {
      const what = issue.origin === 'string' ? 'must not be empty' : `must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`;
      out.push(problemAt(p, at(), issue.origin === 'string' ? 'empty_value' : 'invalid_value', `${fieldName(path)} ${what}`));
      return;
    }
    case 'too_big':
      out.push(problemAt(p, at(), 'invalid_value', `${fieldName(path)} must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`));
      return;
    default:
      out.push(problemAt(p, at(), 'invalid_value', `${fieldName(path)}: ${issue.message}`));
  }
}

function unknownKeys(ctx: IssueContext, keys: readonly string[], { path, value, loc }: IssueAt): void {
  const { p, kind, out } = ctx;
  const allowed = allowedKeys(ctx.schema, path);
  for (const key of keys) {
    const keyLoc = locate(p.root, [...path, key]);
    const pos = posOf(p, keyLoc.keyNode ?? loc.nearest);
    if (key === 'use' && kind === 'step_group') {
      out.push(problemAt(p, pos, 'nested_step_group', 'a step group cannot use another step group', 'copy the steps here, or `use:` both groups from the test case'));
    } else if (kind === 'case' && isPlainObject(value) && 'use' in value && path.includes('steps')) {
      out.push(problemAt(p, pos, 'use_with_other_keys', `a \`use:\` step takes no other keys, found \`${key}\``, 'put `action`/`expected` in a step of their own'));
    } else {
      const guess = didYouMean(key, allowed);
      out.push(problemAt(p, pos, 'unknown_key', `unknown key \`${key}\``, guess ? `did you mean \`${guess}\`?` : `allowed keys: ${allowed.join(', ')}`));
    }
  }
}

/** A union's issues: those of the branch the user meant, or one type problem when no branch's type matched. */
function unionProblems(ctx: IssueContext, branches: readonly (readonly z.core.$ZodIssue[])[], where: IssueAt): void {
  const { p, out } = ctx;
  const { path, value, loc, at } = where;
  // branches whose own type matched the value: the user meant one of those
  const typed = branches.filter((b) => !b.some((i) => i.path.length === 0 && i.code === 'invalid_type'));
  if (typed.length === 0) {
    const expected = [
      ...new Set(
        branches.flatMap((b) =>
          b.filter((i) => i.path.length === 0 && i.code === 'invalid_type').map((i) => EXPECTED[(i as { expected: string }).expected] ?? (i as { expected: string }).expected),
        ),
      ),
    ];
    if (fieldName(path) === 'a step') {
      out.push(problemAt(p, at(), 'invalid_step', `a step must be a mapping with \`action\` and \`expected\`, or with \`use\`, not ${describeValue(value)}`));
    } else {
      out.push(typeProblem(p, path, value, loc, expected.join(' or '), at()));
    }
    return;
  }
  // the branch with the fewest complaints, except that an item with `use:` is a `use:` step
  let chosen = [...typed].sort((a, b) => a.length - b.length)[0];
  if (isPlainObject(value) && 'use' in value) {
    const rejectsUse = (b: readonly z.core.$ZodIssue[]) => b.some((i) => i.path.length === 0 && i.code === 'unrecognized_keys' && i.keys.includes('use'));
    chosen = typed.find((b) => !rejectsUse(b)) ?? chosen;
  }
  for (const i of chosen) addIssue(ctx, i, path);
}

function typeIssue(ctx: IssueContext, expected: string, { path, value, loc, at }: IssueAt): void {
  const { p, kind, out } = ctx;
  if (value === undefined) {
    const parent = valueAt(p.data, path.slice(0, -1));
    // a `use:` in a step group has its own message; "missing action" would only add noise
    if (kind === 'step_group' && isPlainObject(parent) && 'use' in parent) return;
    const parentLoc = locate(p.root, path.slice(0, -1));
    const name = fieldName(path);
    const hint = name === '`title`' ? (kind === 'case' ? 'every test case needs a title' : 'every step group needs a title') : undefined;
    out.push(problemAt(p, posOf(p, parentLoc.node ?? parentLoc.nearest), 'missing_key', `missing ${name}`, hint));
    return;
  }
  out.push(typeProblem(p, path, value, loc, EXPECTED[expected] ?? expected, at()));
}

function quote(value: unknown): string {
  if (typeof value === 'string') return `\`${value.length > 60 ? `${value.slice(0, 57)}…` : value}\``;
  return describeValue(value);
}

function typeProblem(
  p: ParsedYaml,
  path: YamlPath,
  value: unknown,
  loc: ReturnType<typeof locate>,
  expected: string,
  pos: { line: number; col: number },
): Problem {
  const name = fieldName(path);
  if (value === null) {
    return problemAt(
      p,
      posOf(p, loc.keyNode ?? loc.nearest),
      'empty_value',
      `${name} has no value`,
      expected === 'a text' ? 'write a value, `""` for an empty text, or remove the line' : 'write a value or remove the line',
    );
  }
  const src = sourceOf(p, loc.node);
  const hint =
    expected.startsWith('a text') && (typeof value === 'number' || typeof value === 'boolean') && src
      ? `quote it: "${src}"`
      : undefined;
  return problemAt(p, pos, 'wrong_type', `${name} must be ${expected}, not ${describeValue(value)}`, hint);
}
