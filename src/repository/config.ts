import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, normalize, resolve } from 'node:path';
import { TmsyncError, ValidationError, type Problem } from '../errors.js';
import { CASE_FIELDS, setField } from '../fields.js';
import type { CaseDefaults } from '../model.js';
import { configSchema, type ConfigInput, type ImportMapInput } from './file-schemas.js';
import { parseDuration } from '../duration.js';
import { locate, parseYamlFile, posOf, problemAt, sortProblems, type ParsedYaml } from './yaml-source.js';
import { zodProblems } from './zod-problems.js';
import { gherkinOptions, type GherkinOptions } from './gherkin-options.js';

/** A named target for `--profile` (migrations, staging). */
export interface TmsyncProfile {
  baseUrl?: string;
  appUrl?: string;
  project?: string;
  /** the environment variable holding this target's API key */
  apiKeyEnv?: string;
  rateLimit?: number;
  concurrency?: number;
}

/** `tmsync.yaml`, normalized (camelCase, defaults applied). API keys are never part of it. */
export interface TmsyncConfig {
  /** project id, human_id_prefix or exact name */
  project?: string;
  /** service base URL ending in /api/v1 */
  baseUrl?: string;
  /** execution interface root */
  appUrl?: string;
  /** @default 'cases' */
  casesDir: string;
  /** @default 'step_groups' */
  stepGroupsDir: string;
  /** only these folder subtrees are managed (paths of names joined by `/`); undefined = all */
  scope?: string[];
  defaults: CaseDefaults;
  /** requests per second. @default 8 */
  rateLimit: number;
  /** requests in flight. @default 4 */
  concurrency: number;
  /** items per page on reads. @default 100 */
  pageSize: number;
  /** per request, from `request_timeout` (seconds or a duration like "30s"). @default 30000 */
  requestTimeoutMs: number;
  /** @default 6 */
  maxRetries: number;
  /** pages read at most from a list without `total_count` (or whose total keeps growing), from `max_pages`. @default 10000 */
  maxPages: number;
  /** the largest answer read, in bytes, from `max_response_size`. @default 64 MiB */
  maxResponseBytes: number;
  /** `results.encoding`: how run-case updates travel. @default 'auto' */
  resultsEncoding: 'auto' | 'json' | 'multipart';
  /** `results.mark_automated`: results push edits the pushed cases' automation_type (docs/automation.md) @default false */
  resultsMarkAutomated?: boolean;
  profiles: Record<string, TmsyncProfile>;
  /** `import:`: the column and value maps of `tmsync import` (as written: snake_case field keys) */
  import?: ImportMapInput;
  /** the `gherkin:` section, normalized; undefined: the defaults (`GHERKIN_DEFAULTS`) */
  gherkin?: GherkinOptions;
}

export const CONFIG_DEFAULTS = {
  casesDir: 'cases',
  stepGroupsDir: 'step_groups',
  rateLimit: 8,
  concurrency: 4,
  pageSize: 100,
  requestTimeoutMs: 30_000,
  maxRetries: 6,
  maxPages: 10_000,
  maxResponseBytes: 64 * 1024 * 1024,
  resultsEncoding: 'auto',
} as const;

/** `65536` (bytes), `"512KiB"`, `"64MiB"`, `"1GiB"`, `"100MB"` → bytes. */
function parseSize(value: number | string): number {
  if (typeof value === 'number') return Math.round(value);
  const m = /^([0-9]+(?:\.[0-9]+)?)\s*(B|KiB|MiB|GiB|KB|MB|GB)?$/i.exec(value.trim());
  if (!m) throw new TmsyncError('invalid_size', `\`${value}\` is not a size`, { hint: 'write e.g. 64MiB, 512KiB or a number of bytes' });
  const unit = (m[2] ?? 'B').toLowerCase();
  const factor: Record<string, number> = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, kb: 1e3, mb: 1e6, gb: 1e9 };
  return Math.round(Number(m[1]) * factor[unit]);
}

/** The one duration syntax of tmsync (a bare number is seconds): see src/duration.ts. */
export { parseDuration };

const API_KEY_HINT =
  'remove it, and rotate the key if the file was ever committed; tmsync reads the key from TMSYNC_API_KEY or from the variable a profile names in `api_key_env`';

/**
 * Reads and checks `tmsync.yaml`. Throws `config_not_found` when the file is missing and a
 * ValidationError carrying every problem when it is invalid.
 */
export async function loadConfig(file: string): Promise<{ config: TmsyncConfig; root: string; file: string }> {
  const read = await readConfig(file);
  if (!read.config) throw new ValidationError(read.problems);
  return { config: read.config, root: read.root, file: read.file };
}

/** The configuration file's name; `findConfigFile` looks for it upward from a directory. */
export const CONFIG_FILE_NAME = 'tmsync.yaml';

/**
 * Finds `tmsync.yaml` in `dir` or the nearest directory above it, as git finds `.git`: running in
 * `cases/Checkout` uses the repository's configuration. Returns the absolute file, or undefined
 * and every directory looked in (nearest first) so an error can say where it looked.
 */
export async function findConfigFile(dir: string): Promise<{ file?: string; searched: string[] }> {
  const searched: string[] = [];
  let current = resolve(dir);
  for (;;) {
    searched.push(current);
    const candidate = resolve(current, CONFIG_FILE_NAME);
    const found = await stat(candidate).then(
      (s) => s.isFile(),
      () => false,
    );
    if (found) return { file: candidate, searched };
    const parent = dirname(current);
    if (parent === current) return { searched };
    current = parent;
  }
}

/** "/a/b/c, /a/b, /a and /" — the directories `findConfigFile` looked in, for a message. */
export function describeSearch(searched: readonly string[]): string {
  if (searched.length <= 1) return searched.join('');
  return `${searched.slice(0, -1).join(', ')} and ${searched[searched.length - 1]}`;
}

/**
 * Like `loadConfig`, but returns the problems (warnings included) instead of throwing them.
 * Still throws `config_not_found` for a missing file and real I/O errors.
 */
export async function readConfig(
  file: string,
): Promise<{ config?: TmsyncConfig; problems: Problem[]; root: string; file: string }> {
  const abs = resolve(file);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new TmsyncError('config_not_found', `no configuration file at ${abs}`, {
        hint: 'run `tmsync init` to create a tests repository, or pass --config FILE',
        details: { file: abs },
      });
    }
    throw err;
  }
  const { config, problems } = parseConfigText(basename(abs), text);
  const failed = problems.some((p) => p.severity !== 'warning');
  return { ...(config && !failed ? { config } : {}), problems: sortProblems(problems), root: dirname(abs), file: abs };
}

/** Checks the text of a configuration file; `file` is the name used in problems. */
export function parseConfigText(file: string, text: string): { config?: TmsyncConfig; problems: Problem[] } {
  const { parsed: p, problems } = parseYamlFile(file, text, 'tmsync.yaml');
  if (!p) return { problems };
  // an API key in the file is refused by name, before anything could echo its value
  const data: Record<string, unknown> = { ...p.data };
  if ('api_key' in data) {
    problems.push(secretProblem(p, ['api_key']));
    delete data.api_key;
  }
  if (data.profiles && typeof data.profiles === 'object' && !Array.isArray(data.profiles)) {
    const profiles: Record<string, unknown> = { ...(data.profiles as Record<string, unknown>) };
    for (const [name, profile] of Object.entries(profiles)) {
      if (profile && typeof profile === 'object' && !Array.isArray(profile) && 'api_key' in profile) {
        problems.push(secretProblem(p, ['profiles', name, 'api_key']));
        const { api_key: _secret, ...rest } = profile as Record<string, unknown>;
        profiles[name] = rest;
      }
    }
    data.profiles = profiles;
  }
  // directory rules run even when the schema fails, so one run shows every problem
  for (const key of ['cases_dir', 'step_groups_dir'] as const) {
    const dir = data[key];
    if (typeof dir !== 'string') continue;
    const n = normalize(dir);
    if (isAbsolute(dir) || n === '..' || n.startsWith('../') || n.startsWith('..\\') || n === '.' || dir.trim() === '') {
      problems.push(
        problemAt(p, posOf(p, locate(p.root, [key]).node), 'invalid_dir', `\`${key}\` must be a directory inside the repository, relative to tmsync.yaml`),
      );
    }
  }
  const result = configSchema.safeParse(data);
  if (!result.success) {
    problems.push(...zodProblems({ ...p, data }, result.error.issues, configSchema, 'config'));
    return { problems };
  }
  const input: ConfigInput = result.data;
  const casesDir = trimSlashes(input.cases_dir ?? CONFIG_DEFAULTS.casesDir);
  const stepGroupsDir = trimSlashes(input.step_groups_dir ?? CONFIG_DEFAULTS.stepGroupsDir);
  if (normalize(casesDir) === normalize(stepGroupsDir)) {
    problems.push(
      problemAt(p, posOf(p, locate(p.root, ['step_groups_dir']).keyNode ?? p.root), 'invalid_dir', '`cases_dir` and `step_groups_dir` must be different directories'),
    );
  }
  if (problems.some((x) => x.severity !== 'warning')) return { problems };

  const defaults: CaseDefaults = {};
  const given: Partial<Record<string, string>> = input.defaults ?? {};
  for (const f of CASE_FIELDS) {
    const value = given[f.key];
    if (f.required && value !== undefined) setField(defaults, f, 'model', value);
  }

  const profiles: Record<string, TmsyncProfile> = {};
  for (const [name, pr] of Object.entries(input.profiles ?? {})) {
    profiles[name] = dropUndefined({
      baseUrl: pr.base_url,
      appUrl: pr.app_url,
      project: pr.project,
      apiKeyEnv: pr.api_key_env,
      rateLimit: pr.rate_limit,
      concurrency: pr.concurrency,
    });
  }
  const config: TmsyncConfig = {
    ...dropUndefined({ project: input.project, baseUrl: input.base_url, appUrl: input.app_url }),
    casesDir,
    stepGroupsDir,
    ...(input.scope !== undefined ? { scope: input.scope } : {}),
    defaults,
    rateLimit: input.rate_limit ?? CONFIG_DEFAULTS.rateLimit,
    concurrency: input.concurrency ?? CONFIG_DEFAULTS.concurrency,
    pageSize: input.page_size ?? CONFIG_DEFAULTS.pageSize,
    requestTimeoutMs:
      input.request_timeout === undefined ? CONFIG_DEFAULTS.requestTimeoutMs : parseDuration(input.request_timeout, 'request_timeout'),
    maxRetries: input.max_retries ?? CONFIG_DEFAULTS.maxRetries,
    maxPages: input.max_pages ?? CONFIG_DEFAULTS.maxPages,
    maxResponseBytes: input.max_response_size === undefined ? CONFIG_DEFAULTS.maxResponseBytes : parseSize(input.max_response_size),
    resultsEncoding: input.results?.encoding ?? CONFIG_DEFAULTS.resultsEncoding,
    ...(input.results?.mark_automated !== undefined ? { resultsMarkAutomated: input.results.mark_automated } : {}),
    ...(input.gherkin !== undefined ? { gherkin: gherkinOptions(input.gherkin) } : {}),
    profiles,
    ...(input.import !== undefined ? { import: input.import } : {}),
  };
  return { config, problems };
}

function secretProblem(p: ParsedYaml, path: string[]): Problem {
  const loc = locate(p.root, path);
  return problemAt(
    p,
    posOf(p, loc.keyNode ?? loc.nearest),
    'api_key_in_config',
    '`api_key` is not allowed in tmsync.yaml: API keys come only from the environment',
    API_KEY_HINT,
  );
}

function trimSlashes(dir: string): string {
  return dir.replace(/[\\/]+$/, '').replace(/^\.\//, '');
}

function dropUndefined<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}
