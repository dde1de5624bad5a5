import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fastParseYaml } from '../repository/fast-yaml.js';
import { formatOf, isFolderFileName } from '../repository/format.js';
import { decodeTextOrThrow } from '../repository/text-file.js';

/**
 * The YAML case files of a repository as the automation loop reads them (docs/automation.md): each
 * file's id, title, `automation_type` and the tests its `automation.tests` names. Read without the
 * loader (no lookups, no validation): `tmsync import junit` asks which tests a case already names,
 * `run cases --format testplan-json` the tests of a case, `results push --mark-automated` which
 * file holds a case. A file that does not parse is left out; `validate` names it.
 */

export interface AutomationEntry {
  /** relative to the repository root, `/`-separated */
  path: string;
  id?: string;
  title?: string;
  automationType?: string;
  tests: string[];
}

async function listDir(dir: string): Promise<{ name: string; isDir: boolean }[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, isDir: e.isDirectory() }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function readEntry(root: string, path: string): Promise<AutomationEntry | undefined> {
  const format = formatOf(path);
  if (!format || format.name !== 'yaml') return undefined;
  let data: unknown;
  try {
    const { text } = decodeTextOrThrow(await readFile(join(root, path)), path);
    data = fastParseYaml(text)?.data ?? format.readDocument(text);
  } catch {
    return undefined;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const doc = data as Record<string, unknown>;
  const automation = doc.automation as { tests?: unknown } | undefined;
  const tests = Array.isArray(automation?.tests) ? automation.tests.filter((t): t is string => typeof t === 'string') : [];
  return {
    path,
    ...(typeof doc.id === 'string' ? { id: doc.id } : {}),
    ...(typeof doc.title === 'string' ? { title: doc.title } : {}),
    ...(typeof doc.automation_type === 'string' ? { automationType: doc.automation_type } : {}),
    tests,
  };
}

/** Files read at once. */
const PARALLEL = 16;

/** Every YAML case file under `casesDir` (relative to `root`), in directory order. */
export async function scanAutomation(root: string, casesDir: string): Promise<AutomationEntry[]> {
  const out: AutomationEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = (await listDir(join(root, rel))).filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files = entries.filter((e) => !e.isDir && !isFolderFileName(e.name));
    for (let i = 0; i < files.length; i += PARALLEL) {
      const read = await Promise.all(files.slice(i, i + PARALLEL).map((e) => readEntry(root, `${rel}/${e.name}`)));
      for (const r of read) if (r) out.push(r);
    }
    for (const e of entries) if (e.isDir) await walk(`${rel}/${e.name}`);
  };
  await walk(casesDir);
  return out;
}

/** The human id prefix the repository's case ids use most (`SHOP` for `SHOP-12`), when any has one. */
export function repositoryPrefix(entries: readonly AutomationEntry[]): string | undefined {
  const counts = new Map<string, number>();
  for (const e of entries) {
    const m = /^([A-Za-z][A-Za-z0-9]*)-\d+$/.exec(e.id ?? '');
    if (m) counts.set(m[1].toUpperCase(), (counts.get(m[1].toUpperCase()) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [p, n] of counts) if (best === undefined || n > counts.get(best)!) best = p;
  return best;
}
