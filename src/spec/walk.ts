import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A directory under cases_dir; `segments` are directory names from cases_dir down. */
export interface WalkedDir {
  /** relative to the repository root, `/`-separated */
  rel: string;
  segments: string[];
  /** `_folder.yaml` (or `.yml`) relative path, when present */
  folderFile?: string;
  /** case files directly in this directory, relative paths, sorted */
  caseFiles: string[];
}

export const isYamlFile = (name: string): boolean => /\.ya?ml$/i.test(name);
export const isFolderFile = (name: string): boolean => /^_folder\.ya?ml$/i.test(name);

/** Code-unit order: stable across platforms and locales. */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

async function entries(abs: string): Promise<{ name: string; dir: boolean }[]> {
  const list = await readdir(abs, { withFileTypes: true });
  const out: { name: string; dir: boolean }[] = [];
  for (const e of list) {
    // hidden entries (.git, .DS_Store, editor swap files) are never part of the repository
    if (e.name.startsWith('.')) continue;
    if (e.isSymbolicLink()) {
      // follow links to files and directories alike, but only if they resolve
      const s = await stat(join(abs, e.name)).catch(() => undefined);
      if (!s) continue;
      out.push({ name: e.name, dir: s.isDirectory() });
    } else if (e.isDirectory()) out.push({ name: e.name, dir: true });
    else if (e.isFile()) out.push({ name: e.name, dir: false });
  }
  return out.sort((a, b) => byName(a.name, b.name));
}

/**
 * Walks cases_dir: every directory (parents before children, names sorted) with its
 * `_folder.yaml` and case files. Files directly in cases_dir come back as `rootFiles`.
 * Returns undefined when cases_dir does not exist.
 */
export async function walkCasesDir(
  root: string,
  casesDir: string,
): Promise<{ dirs: WalkedDir[]; rootFiles: string[]; rootFolderFile?: string } | undefined> {
  const absRoot = join(root, casesDir);
  const s = await stat(absRoot).catch(() => undefined);
  if (!s || !s.isDirectory()) return undefined;
  const relBase = casesDir.split(/[\\/]/).filter(Boolean).join('/');
  const dirs: WalkedDir[] = [];
  const rootFiles: string[] = [];
  let rootFolderFile: string | undefined;
  const seen = new Set<string>();

  const visit = async (segments: string[]): Promise<void> => {
    const abs = join(absRoot, ...segments);
    const real = await realpath(abs);
    // a symlink cycle would walk forever
    if (seen.has(real)) return;
    seen.add(real);
    const rel = [relBase, ...segments].join('/');
    const list = await entries(abs);
    const caseFiles: string[] = [];
    let folderFile: string | undefined;
    const subdirs: string[] = [];
    for (const e of list) {
      if (e.dir) subdirs.push(e.name);
      else if (isFolderFile(e.name)) folderFile ??= `${rel}/${e.name}`;
      else if (isYamlFile(e.name)) caseFiles.push(`${rel}/${e.name}`);
    }
    if (segments.length === 0) {
      rootFiles.push(...caseFiles);
      rootFolderFile = folderFile;
    } else {
      dirs.push({ rel, segments, ...(folderFile ? { folderFile } : {}), caseFiles });
    }
    for (const d of subdirs) await visit([...segments, d]);
  };
  await visit([]);
  return { dirs, rootFiles, ...(rootFolderFile ? { rootFolderFile } : {}) };
}

/** Step group files directly in step_groups_dir (relative paths, sorted); [] when it is absent. */
export async function listStepGroupFiles(root: string, stepGroupsDir: string): Promise<{ files: string[]; nested: string[] }> {
  const abs = join(root, stepGroupsDir);
  const s = await stat(abs).catch(() => undefined);
  if (!s || !s.isDirectory()) return { files: [], nested: [] };
  const relBase = stepGroupsDir.split(/[\\/]/).filter(Boolean).join('/');
  const list = await entries(abs);
  return {
    files: list.filter((e) => !e.dir && isYamlFile(e.name)).map((e) => `${relBase}/${e.name}`),
    nested: list.filter((e) => e.dir).map((e) => `${relBase}/${e.name}`),
  };
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the order of results. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
