import { caseDocument, stepGroupDocument } from '../repository/documents.js';
import { defaultFormat } from '../repository/format.js';
import type { ItemDocument } from '../repository/repository-format.js';
import type { DesiredCaseFields, DesiredStep } from '../model.js';
import { isPortableDirName, NameAllocator, safeDirName, slugify } from '../pull/naming.js';
import { canonicalJson } from '../canonical-json.js';
import { foldFields, foldStepData } from './fold.js';
import { isUseStep, type ImportedCase, type ImportedLookups, type ImportedProject, type ImportedStepGroup } from './imported.js';
import type { SourceTool } from './reader.js';
import type { ImportReport } from './report.js';
import type { ScannedFile, ScannedRepository } from './scan-repository.js';
import { foldValue, LOOKUP_KEYS, mapValue, type KnownValues, type LookupKey, type ValueMap } from './value-map.js';

/**
 * What an import writes, as data (pure: tested without a disk): a new file with its content, an
 * existing file (found by its `source:`) with the keys that changed, or a file that moves because
 * its folder changed in the source. Items of this tool the repository holds and the export no
 * longer does are listed, never deleted.
 */

export type ImportFile =
  /** `content` is rendered when read (a getter): 50,000 new files are never all in memory as text */
  | { action: 'create'; kind: 'case' | 'step_group' | 'folder'; path: string; readonly content: string; source?: string }
  | { action: 'update'; kind: 'case' | 'step_group'; path: string; fields: ItemDocument; source: string; renameFrom?: string };

export interface ImportFilesResult {
  files: ImportFile[];
  unchanged: number;
  /** files of this tool whose source item is not in the export (kept) */
  vanished: { path: string; source: string }[];
  /** lookup values seen, per field (for the proposed map) */
  seen: Map<LookupKey, Set<string>>;
  /** values written as they came because the map names them without a target: validate names them */
  unmapped: { path: string; field: LookupKey; value: string }[];
}

export interface ImportFilesOptions {
  tool: SourceTool;
  casesDir: string;
  stepGroupsDir: string;
  /** `--folder PATH`: every folder of the export goes under this one */
  under: readonly string[];
  values: ValueMap;
  known?: KnownValues;
  /** the service's label names, folded (`foldValue`), when a service was asked: other labels are folded into text */
  knownLabels?: ReadonlySet<string>;
  report: ImportReport;
}

/** The keys an import writes into a case file (after the field table's, `source` last). */
export const SOURCE_KEY = 'source';

const sourceOf = (tool: SourceTool, id: string) => `${tool}:${id}`;
const dirOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

export class Names {
  private readonly allocators = new Map<string, NameAllocator>();
  constructor(private readonly scanned: ScannedRepository) {}

  in(dir: string): NameAllocator {
    let a = this.allocators.get(dir);
    if (!a) {
      a = new NameAllocator();
      for (const n of this.scanned.names.get(dir) ?? []) a.reserve(n);
      this.allocators.set(dir, a);
    }
    return a;
  }
}

/** Folder paths → directories: an existing directory standing for the name, else a new portable one. */
export class Folders {
  private readonly dirs = new Map<string, string>();
  constructor(
    private readonly scanned: ScannedRepository,
    private readonly names: Names,
    private readonly casesDir: string,
    private readonly files: ImportFile[],
  ) {}

  dirFor(path: readonly string[]): string {
    let dir = this.casesDir;
    for (let i = 0; i < path.length; i++) {
      const key = path.slice(0, i + 1).join('\u0000');
      const known = this.dirs.get(key);
      if (known !== undefined) {
        dir = known;
        continue;
      }
      dir = this.childDir(dir, path[i]);
      this.dirs.set(key, dir);
    }
    return dir;
  }

  private childDir(parent: string, name: string): string {
    const existing = (this.scanned.names.get(parent) ?? []).find((n) => (this.scanned.folderNames.get(`${parent}/${n}`) ?? n) === name && this.scanned.names.has(`${parent}/${n}`));
    if (existing !== undefined) return `${parent}/${existing}`;
    const portable = isPortableDirName(name);
    const dir = `${parent}/${this.names.in(parent).allocate(portable ? name : safeDirName(name))}`;
    if (!portable || dir.slice(dir.lastIndexOf('/') + 1) !== name) {
      const path = `${dir}/_folder.yaml`;
      this.files.push({ action: 'create', kind: 'folder', path, content: defaultFormat().render('folder', { name }, { path }) });
    }
    return dir;
  }
}

function changedFields(existing: ScannedFile, next: ItemDocument): ItemDocument {
  const changed: ItemDocument = {};
  for (const [key, value] of Object.entries(next)) {
    // a value the export does not give is left as the file has it (docs/import.md, re-runs)
    if (key === 'id' || value === undefined) continue;
    if (canonicalJson(existing.document[key]) !== canonicalJson(value)) changed[key] = value;
  }
  return changed;
}

interface CaseContext {
  options: ImportFilesOptions;
  groupKeys: Map<string, string>;
  result: ImportFilesResult;
}

function mapLookups(lookups: ImportedLookups | undefined, ctx: CaseContext, c: ImportedCase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of LOOKUP_KEYS) {
    const raw = lookups?.[field]?.trim();
    if (!raw) continue;
    let seen = ctx.result.seen.get(field);
    if (!seen) ctx.result.seen.set(field, (seen = new Set()));
    seen.add(raw);
    const m = mapValue(field, raw, ctx.options.values, ctx.options.known);
    if (m.kind === 'mapped') out[field] = m.value;
    else if (m.kind === 'unmapped') {
      out[field] = m.value;
      ctx.result.unmapped.push({ path: '', field, value: raw });
    } else {
      ctx.options.report.record('dropped', field, 'no value map for the field: the case takes `defaults` (see the proposed map)', raw, c.at);
    }
  }
  return out;
}

function caseFields(c: ImportedCase, ctx: CaseContext): DesiredCaseFields {
  const { report } = ctx.options;
  const fields: Record<string, unknown> = {};
  const labels = [...new Set((c.labels ?? []).map((l) => l.trim()).filter((l) => l !== ''))];
  const known = ctx.options.knownLabels;
  const missing = known ? labels.filter((l) => !known.has(foldValue(l))) : [];
  for (const l of missing) report.record('folded', 'label', 'the service has no such label (its API cannot create one): into the "Fields" block as Labels', l, c.at);
  const extra = missing.length > 0 ? [...(c.fields ?? []), { name: 'Labels', value: missing.join(', ') }] : c.fields;
  const description = foldFields(c.description, extra, report, c.at);
  if (description?.trim()) fields.description = description;
  if (c.preconditions?.trim()) fields.preconditions = c.preconditions;
  if (c.steps && c.steps.length > 0) {
    fields.steps = c.steps.map((s): DesiredStep => {
      if (!isUseStep(s)) return { kind: 'step', action: foldStepData(s, report, c.at), expected: s.expected ?? '' };
      const key = ctx.groupKeys.get(s.use);
      if (key !== undefined) return { kind: 'use', use: key };
      report.record('dropped', 'shared step', 'the export refers to shared steps it does not hold', s.use, c.at);
      return { kind: 'step', action: `(shared steps ${s.use}, not in the export)`, expected: '' };
    });
  } else if (c.stepsText?.trim()) {
    fields.stepsText = c.stepsText;
    if (c.expectedResults?.trim()) fields.expectedResults = c.expectedResults;
  }
  const lookups = mapLookups(c.lookups, ctx, c);
  if (lookups.priority) fields.priority = lookups.priority;
  if (lookups.type) fields.type = lookups.type;
  if (lookups.status) fields.status = lookups.status;
  if (lookups.automation_type) fields.automationType = lookups.automation_type;
  if (lookups.owner) fields.owner = lookups.owner;
  if (lookups.reviewer) fields.reviewer = lookups.reviewer;
  const kept = labels.filter((l) => !missing.includes(l));
  if (kept.length > 0) fields.labels = kept;
  return fields;
}

function groupDocument(g: ImportedStepGroup, report: ImportReport, source: string): ItemDocument {
  const doc = stepGroupDocument({
    title: g.title,
    ...(g.description?.trim() ? { description: g.description } : {}),
    steps: g.steps.map((s) => ({ action: foldStepData(s, report, g.at), expected: s.expected ?? '' })),
  });
  return { ...doc, [SOURCE_KEY]: source };
}

function place(kind: 'case' | 'step_group', dir: string, title: string, source: string, doc: ItemDocument, existing: ScannedFile | undefined, names: Names, result: ImportFilesResult): string {
  const format = defaultFormat();
  const ext = format.extensions[0];
  if (existing) {
    const moved = kind === 'case' && dirOf(existing.path) !== dir;
    const path = moved ? `${dir}/${names.in(dir).allocate(slugify(title), ext)}` : existing.path;
    const fields = changedFields(existing, doc);
    if (moved || Object.keys(fields).length > 0) {
      result.files.push({ action: 'update', kind, path, fields: moved ? { ...existing.document, ...fields } : fields, source, ...(moved ? { renameFrom: existing.path } : {}) });
    } else result.unchanged++;
    return path;
  }
  const path = `${dir}/${names.in(dir).allocate(slugify(title), ext)}`;
  result.files.push({
    action: 'create',
    kind,
    path,
    source,
    get content() {
      return format.render(kind, doc, { path });
    },
  });
  return path;
}

/**
 * A declared folder that holds nothing the import writes, and no file yet, gets a `_folder.yaml`
 * (git keeps no empty directory, and the loader makes a folder of a directory with one).
 */
function emptyFolderFiles(dirs: readonly string[], project: ImportedProject, scanned: ScannedRepository, result: ImportFilesResult): void {
  const used = new Set<string>();
  for (const f of result.files) for (let d = dirOf(f.path); d.includes('/'); d = dirOf(d)) used.add(d);
  for (const [i, dir] of dirs.entries()) {
    if (used.has(dir) || scanned.names.has(dir)) continue;
    used.add(dir);
    const path = `${dir}/_folder.yaml`;
    const name = project.folders[i][project.folders[i].length - 1];
    result.files.push({ action: 'create', kind: 'folder', path, content: defaultFormat().render('folder', { name }, { path }) });
  }
}

/** The files an import of `project` writes into the repository `scanned` describes. */
export function buildImportFiles(project: ImportedProject, scanned: ScannedRepository, options: ImportFilesOptions): ImportFilesResult {
  const result: ImportFilesResult = { files: [], unchanged: 0, vanished: [], seen: new Map(), unmapped: [] };
  const names = new Names(scanned);
  const folders = new Folders(scanned, names, options.casesDir, result.files);
  const groupKeys = new Map<string, string>();
  const present = new Set<string>();
  for (const g of project.stepGroups) {
    const source = sourceOf(options.tool, g.sourceId);
    // several files of one export (or a group every file repeats) hold it once
    if (present.has(source)) continue;
    present.add(source);
    const path = place('step_group', options.stepGroupsDir, g.title, source, groupDocument(g, options.report, source), scanned.bySource.get(source), names, result);
    groupKeys.set(g.sourceId, path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, ''));
  }
  const declared = project.folders.map((f) => folders.dirFor([...options.under, ...f]));
  const ctx: CaseContext = { options, groupKeys, result };
  for (const c of project.cases) {
    const source = sourceOf(options.tool, c.sourceId);
    if (present.has(source)) {
      options.report.record('dropped', 'duplicate case', 'a second item with the same source id in the export: the first one is kept', `${c.sourceId} ${c.title}`, c.at);
      continue;
    }
    present.add(source);
    const dir = folders.dirFor([...options.under, ...c.folder]);
    const unmappedBefore = result.unmapped.length;
    const fields = caseFields(c, ctx);
    const doc = { ...caseDocument({ title: c.title, fields }), [SOURCE_KEY]: source };
    const path = place('case', dir, c.title, source, doc, scanned.bySource.get(source), names, result);
    for (let i = unmappedBefore; i < result.unmapped.length; i++) result.unmapped[i].path = path;
  }
  emptyFolderFiles(declared, project, scanned, result);
  const prefix = `${options.tool}:`;
  for (const [source, file] of scanned.bySource) {
    if (source.startsWith(prefix) && !present.has(source)) result.vanished.push({ path: file.path, source });
  }
  return result;
}
