import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Problem } from '../errors.js';
import { formatOf, holds, isFolderFileName } from './format.js';

/** A directory under cases_dir; `segments` are directory names from cases_dir down. */
export interface WalkedDir {
  /** relative to the repository root, `/`-separated */
  rel: string;
  segments: string[];
  /** `_folder.yaml` (`_folder` and an extension of a format holding folders) relative path, when present */
  folderFile?: string;
  /** case files directly in this directory, relative paths, sorted */
  caseFiles: string[];
}


/** Code-unit order: stable across platforms and locales. */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Natural order, as people number files: `case-2` before `case-10` (a run of digits compares by
 * its value), everything else by code unit as {@link byName}, which also breaks ties (`a01`, `a1`).
 * Stable across platforms and locales (no collator). The plan, and so the apply's creates, follow
 * it: the service numbers items in the order they are created.
 */
export function byNaturalName(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let ei = i;
      let ej = j;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      // leading zeros do not change a value
      let si = i;
      let sj = j;
      while (si < ei - 1 && a.charCodeAt(si) === 48) si++;
      while (sj < ej - 1 && b.charCodeAt(sj) === 48) sj++;
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d;
      }
      i = ei;
      j = ej;
      continue;
    }
    if (ca !== cb) return ca - cb;
    i++;
    j++;
  }
  if (i < a.length || j < b.length) return i < a.length ? 1 : -1;
  return byName(a, b);
}

/**
 * What a walk found besides the files: links leading outside the repository (refused, never
 * followed), names that are twins on case-insensitive or normalising file systems, and
 * temporary files a killed older version left next to the files.
 */
interface WalkFindings {
  problems: Problem[];
  /** stray temporary files, relative paths, for a writing command to remove */
  strays: string[];
}

interface WalkContext extends WalkFindings {
  /** the repository root, symbolic links resolved */
  rootReal: string;
}

/**
 * The key under which two names are one entry on macOS (APFS/HFS+) and Windows (NTFS) by
 * default: Unicode-normalised (NFC) and case-folded.
 */
const twinKey = (name: string): string => name.normalize('NFC').toUpperCase().toLowerCase();

/** True when `abs` (symbolic links resolved) is `root` or below it. */
export function isInside(rootReal: string, abs: string): boolean {
  const r = relative(rootReal, abs);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

/**
 * `.NAME.yaml.PID.tmp` (and `.NAME.yaml.PID.HEX.tmp`): what a run of an older tmsync killed
 * during write-back left next to a file. Only when that process is gone.
 */
const OLD_TEMP = /^\..+\.ya?ml\.(\d+)(?:\.[0-9a-f]+)?\.tmp$/i;

/** True when no process of that id runs here (a temporary file of a live run is not a stray). */
export function processGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function entries(abs: string, rel: string, ctx: WalkContext): Promise<{ name: string; dir: boolean }[]> {
  const list = await readdir(abs, { withFileTypes: true });
  const out: { name: string; dir: boolean }[] = [];
  for (const e of list) {
    // hidden entries (.git, .DS_Store, editor swap files) are never part of the repository
    if (e.name.startsWith('.')) {
      const m = OLD_TEMP.exec(e.name);
      if (m && e.isFile() && processGone(Number(m[1]))) ctx.strays.push(`${rel}/${e.name}`);
      continue;
    }
    if (e.isSymbolicLink()) {
      // follow links to files and directories alike, but only if they resolve, and only inside
      // the repository: a link leading out would put an outside file's content in plans and
      // comments, and let a write-back change it
      const real = await realpath(join(abs, e.name)).catch(() => undefined);
      if (!real) continue;
      if (!isInside(ctx.rootReal, real)) {
        ctx.problems.push({
          file: `${rel}/${e.name}`,
          line: 1,
          col: 1,
          code: 'link_outside_repository',
          message: `a symbolic link leading outside the repository (to ${real}); tmsync does not follow it`,
          hint: 'replace the link by a copy of the file, or move its target into the repository',
        });
        continue;
      }
      const s = await stat(real).catch(() => undefined);
      if (!s) continue;
      out.push({ name: e.name, dir: s.isDirectory() });
    } else if (e.isDirectory()) out.push({ name: e.name, dir: true });
    else if (e.isFile()) out.push({ name: e.name, dir: false });
  }
  out.sort((a, b) => byNaturalName(a.name, b.name));
  // twins: one entry on macOS and Windows, two here
  const seen = new Map<string, string>();
  for (const e of out) {
    if (!e.dir && !formatOf(e.name)) continue;
    const key = twinKey(e.name);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, e.name);
      continue;
    }
    const how = first.normalize('NFC') === e.name.normalize('NFC') ? 'Unicode normalisation (NFC/NFD)' : 'letter case';
    ctx.problems.push({
      file: `${rel}/${e.name}`,
      line: 1,
      col: 1,
      code: 'name_twins',
      message: `\`${rel}/${first}\` and \`${rel}/${e.name}\` differ only by ${how}: macOS and Windows keep one of them, so the repository cannot be checked out there`,
      hint: 'rename one of them',
      severity: 'warning',
    });
  }
  return out;
}

/** Checks that a configured directory itself does not lead outside the repository. */
async function dirInside(root: string, dir: string, ctx: WalkContext): Promise<boolean> {
  const real = await realpath(join(root, dir)).catch(() => undefined);
  if (!real || isInside(ctx.rootReal, real)) return true;
  ctx.problems.push({
    file: dir,
    line: 1,
    col: 1,
    code: 'link_outside_repository',
    message: `\`${dir}\` leads outside the repository (to ${real}); tmsync does not follow it`,
    hint: 'keep the directory inside the repository (a real directory, or a link to one inside it)',
  });
  return false;
}

const newContext = async (root: string): Promise<WalkContext> => ({ rootReal: await realpath(root), problems: [], strays: [] });

/**
 * Walks cases_dir: every directory (parents before children, names sorted) with its
 * `_folder.yaml` and case files (files a format holding cases claims: `format.ts`). Files directly in cases_dir come back as `rootFiles`.
 * Returns undefined when cases_dir does not exist.
 */
export async function walkCasesDir(
  root: string,
  casesDir: string,
): Promise<({ dirs: WalkedDir[]; rootFiles: string[]; rootFolderFile?: string } & WalkFindings) | undefined> {
  const absRoot = join(root, casesDir);
  const s = await stat(absRoot).catch(() => undefined);
  if (!s || !s.isDirectory()) return undefined;
  const relBase = casesDir.split(/[\\/]/).filter(Boolean).join('/');
  const ctx = await newContext(root);
  const dirs: WalkedDir[] = [];
  const rootFiles: string[] = [];
  let rootFolderFile: string | undefined;
  const seen = new Set<string>();
  if (!(await dirInside(root, casesDir, ctx))) return { dirs, rootFiles, problems: ctx.problems, strays: ctx.strays };

  const visit = async (segments: string[]): Promise<void> => {
    const abs = join(absRoot, ...segments);
    const real = await realpath(abs);
    // a symlink cycle would walk forever
    if (seen.has(real)) return;
    seen.add(real);
    const rel = [relBase, ...segments].join('/');
    const list = await entries(abs, rel, ctx);
    const caseFiles: string[] = [];
    let folderFile: string | undefined;
    const subdirs: string[] = [];
    for (const e of list) {
      if (e.dir) subdirs.push(e.name);
      else if (isFolderFileName(e.name)) folderFile ??= `${rel}/${e.name}`;
      else if (holds(e.name, 'case')) caseFiles.push(`${rel}/${e.name}`);
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
  return { dirs, rootFiles, ...(rootFolderFile ? { rootFolderFile } : {}), problems: ctx.problems, strays: ctx.strays };
}

/** Step group files directly in step_groups_dir (relative paths, sorted); [] when it is absent. */
export async function listStepGroupFiles(root: string, stepGroupsDir: string): Promise<{ files: string[]; nested: string[] } & WalkFindings> {
  const abs = join(root, stepGroupsDir);
  const s = await stat(abs).catch(() => undefined);
  if (!s || !s.isDirectory()) return { files: [], nested: [], problems: [], strays: [] };
  const relBase = stepGroupsDir.split(/[\\/]/).filter(Boolean).join('/');
  const ctx = await newContext(root);
  if (!(await dirInside(root, stepGroupsDir, ctx))) return { files: [], nested: [], problems: ctx.problems, strays: ctx.strays };
  const list = await entries(abs, relBase, ctx);
  return {
    files: list.filter((e) => !e.dir && holds(e.name, 'step_group')).map((e) => `${relBase}/${e.name}`),
    nested: list.filter((e) => e.dir).map((e) => `${relBase}/${e.name}`),
    problems: ctx.problems,
    strays: ctx.strays,
  };
}
