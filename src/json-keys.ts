/**
 * The one key convention of tmsync's JSON documents (every `--json` document and the plan file):
 * snake_case, as the service's interface and `format_version`. The code's own objects keep
 * camelCase; documents are converted where they are written and read, so a new field cannot slip
 * out in the other style.
 */

/**
 * Keys whose value is data, not part of the document's shape, kept as they are: maps keyed by ids
 * (`remote_versions`) or by the service's status names (`counts` of `results push`; the other
 * `counts` are keyed by snake_case names already), a file's or the service's value (`local`, `remote`),
 * another tool's values (`proposed_map` of `import`).
 */
export const DATA_KEYS: ReadonlySet<string> = new Set<DataKey>(['remote_versions', 'counts', 'local', 'remote', 'proposed_map']);

/** `humanIdPrefix` → `human_id_prefix`, as a type ({@link snakeCase}). */
export type SnakeCase<S extends string> = S extends `${infer H}${infer R}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<R>}`
  : S;
/** `human_id_prefix` → `humanIdPrefix`, as a type ({@link camelCase}); `format_version` stays. */
export type CamelCase<S extends string> = S extends 'format_version'
  ? S
  : S extends `${infer A}_${infer B}`
    ? `${A}${Capitalize<CamelCase<B>>}`
    : S;
/** A document's type read back into the code's objects: every key in camelCase ({@link camelKeys}). */
export type CamelKeys<T> = T extends readonly (infer U)[]
  ? CamelKeys<U>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: K extends DataKey ? T[K] : CamelKeys<T[K]> }
    : T;
type DataKey = 'remote_versions' | 'counts' | 'local' | 'remote' | 'proposed_map';

/** `humanIdPrefix` → `human_id_prefix`. */
export function snakeCase<S extends string>(key: S): SnakeCase<S> {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as SnakeCase<S>;
}

/** `human_id_prefix` → `humanIdPrefix` (the inverse of {@link snakeCase} for the keys it writes). */
function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A copy of `value` with every object key in snake_case (but the values under {@link DATA_KEYS}). */
export function snakeKeys(value: unknown): unknown {
  return mapKeys(value, snakeCase);
}

/** The inverse of {@link snakeKeys}, for reading a document back into the code's objects; `format_version` stays. */
export function camelKeys<T>(value: T): CamelKeys<T> {
  return mapKeys(value, (k) => (k === 'format_version' ? k : camelCase(k))) as CamelKeys<T>;
}

function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [rename(k), DATA_KEYS.has(snakeCase(k)) ? v : mapKeys(v, rename)]),
  );
}
