import { CASE_FIELDS } from './fields.js';
import type { DesiredCase, DesiredState, DesiredStep, RemoteCase } from './model.js';

/**
 * One copy of each repeated short text (lookup names and ids, labels, users, `use:` keys, file
 * paths), for one load of the repository or one read of a project: parsed items arrive as new
 * strings (worker copies, JSON pages), so the `priority: High` of every case is a string of its
 * own otherwise; shared, a large state holds markedly less (docs/performance.md). Texts over 64 characters are kept as
 * they come (they rarely repeat).
 */
export function textSharer(): (s: string) => string {
  const pool = new Map<string, string>();
  return (s) => {
    if (s.length > 64) return s;
    const had = pool.get(s);
    if (had !== undefined) return had;
    pool.set(s, s);
    return s;
  };
}

/** A character past Latin-1: a string holding one is stored two bytes per character. */
// eslint-disable-next-line no-control-regex
const WIDE = /[^\u0000-\u00ff]/;

/**
 * Whether a text holds a character past Latin-1, so that V8 stores it, and every slice of it, two
 * bytes per character.
 */
export function isWide(text: string): boolean {
  return WIDE.test(text);
}

/**
 * Copies of the strings in a parsed value (objects and arrays walked, in place) that are stored
 * one byte per character where they can be (issue 15). A YAML parser's strings are slices of the
 * file's text, and V8 keeps a slice of a two-byte text two bytes per character even when it holds
 * only Latin-1 (a title beside a description with `✓` took twice its size, and a worker's message
 * carries it as it is). Only for values parsed from a wide text (`isWide`): the others are narrow.
 */
export function narrowTexts<T>(value: T): T {
  if (typeof value === 'string') return (WIDE.test(value) ? value : Buffer.from(value, 'latin1').toString('latin1')) as T;
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (Array.isArray(o)) for (let i = 0; i < o.length; i++) o[i] = narrowTexts<unknown>(o[i]);
  else for (const k of Object.keys(o)) o[k] = narrowTexts(o[k]);
  return value;
}

/**
 * The repository's strings for the texts of a project's cases as they are read (issue 15): a listed
 * case whose title, texts or own steps' texts equal its file's (the file that names it by `id:`)
 * keeps the repository's string instead of the page's copy, or a slice of it (a block text in YAML
 * ends in a line break the service's copy lacks). The two states otherwise hold every title,
 * description and step twice. Equal texts only, so nothing compared or
 * shown changes. Returns the function `fetchState` calls on each case before freezing it.
 */
export function repositoryTexts(desired: DesiredState): (c: RemoteCase) => void {
  const byRef = new Map<string, DesiredCase>();
  for (const d of desired.cases) if (d.id !== undefined) byRef.set(d.id.trim().toUpperCase(), d);
  return (c) => {
    const d = (c.humanId ? byRef.get(c.humanId.toUpperCase()) : undefined) ?? byRef.get(c.id.toUpperCase());
    if (!d) return;
    const r = c as unknown as Record<string, unknown>;
    const f = d.fields as Record<string, unknown>;
    c.title = sameText(d.title, c.title);
    for (const field of CASE_FIELDS) {
      if (field.kind === 'text' && typeof f[field.model] === 'string' && typeof r[field.remote] === 'string') {
        r[field.remote] = sameText(f[field.model] as string, r[field.remote] as string);
      }
      if (field.kind === 'steps' && Array.isArray(f[field.model])) {
        const own = (f[field.model] as DesiredStep[]).filter((s) => s.kind === 'step');
        let i = 0;
        for (const s of c.individualSteps) {
          if (s.stepGroupId) continue;
          const mine = own[i++];
          if (!mine) break;
          s.description = sameText(mine.action, s.description);
          s.expected = sameText(mine.expected, s.expected);
        }
      }
    }
  };
}

/** `theirs`, as the repository's string `mine` when equal, or as a slice of it when `mine` only runs on past it. */
function sameText(mine: string, theirs: string): string {
  if (mine === theirs) return mine;
  // V8 keeps a slice of 13 characters or more as a pointer into its string, a shorter one as a copy
  if (theirs.length >= 13 && mine.length > theirs.length && mine.startsWith(theirs)) return mine.slice(0, theirs.length);
  return theirs;
}
