import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectory } from '../repository/file-ops.js';
import { StepGroup } from '../api/resources.js';
import { withoutCredentials } from '../url-credentials.js';

/**
 * What the last run read one by one, so a re-plan can skip those reads: a step group's steps (the
 * list omits them, a GET has them) and a case's human id (when a list omits it), each with the
 * `updated_at` the list showed. An entry is used only when the list shows the same `updated_at`
 * again; otherwise the item is read and the entry replaced.
 *
 * An `updated_at` has a resolution (a second in the interface document): an edit in the same second
 * as the read would keep it. So, as git does with racy timestamps, a copy is kept only when its
 * `updated_at` is older than the read by more than `RACY_MARGIN_MS` of this machine's clock (which
 * also absorbs clock skew between this machine and the service); an item edited just before the
 * read is read again next time.
 *
 * `.tmsync/cache/reads.json` under the repository root, written atomically (a temporary file, then
 * a rename), git-ignored by `.tmsync/.gitignore`. It is an optimisation only: a missing, corrupt
 * or other-version file, or one written for another service or project, is ignored (everything is
 * read again), and a failed write loses nothing but the saving. It holds no key.
 */
const READ_CACHE_FORMAT_VERSION = 1;
export const READ_CACHE_FILE = join('.tmsync', 'cache', 'reads.json');

interface Entry<T> {
  updated_at: number | string;
  value: T;
}

interface CacheFile {
  format_version: typeof READ_CACHE_FORMAT_VERSION;
  /** the service and project the reads came from */
  target: string;
  step_groups: Record<string, Entry<StepGroup>>;
  case_human_ids: Record<string, Entry<string>>;
}

type Version = number | string | null | undefined;

/** How much older than the read an `updated_at` must be for its copy to be kept (2 minutes). */
const RACY_MARGIN_MS = 120_000;

/** An `updated_at` in ms since the epoch: seconds or ms (numbers below 1e11 are seconds), or a date text. */
function versionMs(v: Version): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return versionMs(n);
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

const same = (a: Version, b: Version) => a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b);

export class ReadCache {
  private nextGroups: Record<string, Entry<StepGroup>> = {};
  private nextCases: Record<string, Entry<string>> = {};
  /** cache hits and misses of this run, for tests and `--verbose` */
  readonly stats = { hits: 0, misses: 0 };

  readonly target: string;

  private constructor(
    target: string,
    private readonly groups: Record<string, Entry<StepGroup>>,
    private readonly cases: Record<string, Entry<string>>,
    private readonly now: () => number,
  ) {
    // the target names the service by its URL, which the file must not hold credentials of
    this.target = withoutCredentials(target);
  }

  /** An empty cache for `target` (e.g. `baseUrl|projectId`); `now` is this machine's clock. */
  static empty(target: string, now: () => number = Date.now): ReadCache {
    return new ReadCache(target, {}, {}, now);
  }

  /** The cache under `root`; empty when missing, unreadable, of another version or another target. */
  static async load(root: string, target: string, now: () => number = Date.now): Promise<ReadCache> {
    try {
      const parsed = JSON.parse(await readFile(join(root, READ_CACHE_FILE), 'utf8')) as Partial<CacheFile> | null;
      if (
        !parsed ||
        typeof parsed !== 'object' ||
        parsed.format_version !== READ_CACHE_FORMAT_VERSION ||
        parsed.target !== withoutCredentials(target) ||
        !isRecord(parsed.step_groups) ||
        !isRecord(parsed.case_human_ids)
      ) {
        return ReadCache.empty(target, now);
      }
      const groups: Record<string, Entry<StepGroup>> = {};
      for (const [id, e] of Object.entries(parsed.step_groups)) {
        if (!isEntry(e)) continue;
        const g = StepGroup.safeParse(e.value);
        if (g.success && g.data.id === id && Array.isArray(g.data.steps)) groups[id] = { updated_at: e.updated_at, value: g.data };
      }
      const cases: Record<string, Entry<string>> = {};
      for (const [id, e] of Object.entries(parsed.case_human_ids)) if (isEntry(e) && typeof e.value === 'string') cases[id] = e;
      return new ReadCache(target, groups, cases, now);
    } catch {
      return ReadCache.empty(target, now);
    }
  }

  /** The step group as the last GET returned it, when its `updated_at` is still `updatedAt`. */
  stepGroup(id: string, updatedAt: Version): StepGroup | undefined {
    const e = this.groups[id];
    if (e && same(e.updated_at, updatedAt)) {
      this.stats.hits++;
      this.nextGroups[id] = e;
      return e.value;
    }
    this.stats.misses++;
    return undefined;
  }

  /** Whether an item whose `updated_at` is `v`, read now, may be kept (see RACY_MARGIN_MS). */
  private settled(v: Version): v is number | string {
    const ms = versionMs(v);
    return ms !== undefined && ms < this.now() - RACY_MARGIN_MS;
  }

  putStepGroup(group: StepGroup, updatedAt: Version): void {
    if (!this.settled(updatedAt)) return;
    this.nextGroups[group.id] = { updated_at: updatedAt, value: group };
  }

  /** The case's human id as the last GET returned it, when its `updated_at` is still `updatedAt`. */
  caseHumanId(id: string, updatedAt: Version): string | undefined {
    const e = this.cases[id];
    if (e && same(e.updated_at, updatedAt)) {
      this.stats.hits++;
      this.nextCases[id] = e;
      return e.value;
    }
    this.stats.misses++;
    return undefined;
  }

  putCaseHumanId(id: string, humanId: string, updatedAt: Version): void {
    if (!this.settled(updatedAt) || !humanId) return;
    this.nextCases[id] = { updated_at: updatedAt, value: humanId };
  }

  /** Keeps the entries of cases this run did not list (a `--changed-since` read lists few cases). */
  keepUnlistedCases(): void {
    for (const [id, e] of Object.entries(this.cases)) if (!(id in this.nextCases)) this.nextCases[id] = e;
  }

  /**
   * Writes what this run read or confirmed (entries of items no list showed are dropped) to
   * `root/.tmsync/cache/reads.json`, atomically; creates `.tmsync/.gitignore` when missing.
   */
  async save(root: string): Promise<void> {
    const dir = join(root, '.tmsync');
    await makeDirectory(join(dir, 'cache'));
    await writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    const file: CacheFile = {
      format_version: READ_CACHE_FORMAT_VERSION,
      target: this.target,
      step_groups: this.nextGroups,
      case_human_ids: this.nextCases,
    };
    const path = join(root, READ_CACHE_FILE);
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(file), 'utf8');
    await rename(tmp, path);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEntry(v: unknown): v is Entry<unknown> {
  return isRecord(v) && (typeof v.updated_at === 'number' || typeof v.updated_at === 'string') && 'value' in v;
}
