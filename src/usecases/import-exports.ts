import { readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TmsyncError } from '../errors.js';
import { decodeImport, type DecodedText, type ImportEncoding } from '../import/decode.js';
import { buildImportFiles, SOURCE_KEY, type ImportFile } from '../import/import-files.js';
import type { ImportedProject } from '../import/imported.js';
import type { ImportReader, ReadImportContext } from '../import/reader.js';
import { IMPORT_READERS, importReader } from '../import/readers.js';
import { renderImportReport, type ImportSummary } from '../import/render-report.js';
import { ImportReport } from '../import/report.js';
import { scanRepository } from '../import/scan-repository.js';
import { proposeValueMap, type KnownValues, type ValueMap } from '../import/value-map.js';
import { writeFileAtomic, writeFilesAtomic } from '../repository/atomic-write.js';
import { setFileFields } from '../repository/edit-file.js';
import type { ImportMapInput } from '../repository/file-schemas.js';
import { formatFor } from '../repository/format.js';
import { CASE_FIELD_KEYS, STEP_GROUP_FIELD_KEYS } from '../fields.js';
import type { UseCaseContext } from './hooks.js';

/**
 * `tmsync import`: other tools' export files → the YAML tests repository, re-runnable (docs/import.md).
 * Reads and decodes each file, picks the format (given, or detected from the content), reads the
 * neutral model, and writes only what changed: new files, the changed keys of files a previous
 * import wrote (found by `source:`), moves. Nothing on the service is touched: `plan` shows it.
 */

export interface ImportExportsOptions {
  /** the repository root (where tmsync.yaml is or goes) */
  root: string;
  casesDir: string;
  stepGroupsDir: string;
  /** the export files, as the user named them, relative to `cwd` */
  files: readonly string[];
  cwd: string;
  /** the FORMAT; undefined: detected from the first file's content */
  format?: string;
  encoding?: ImportEncoding;
  /** `--folder PATH`: the folder every imported folder goes under */
  under?: readonly string[];
  /** `import:` of tmsync.yaml with `--map FILE` over it */
  map?: ImportMapInput;
  /** the service's names per lookup field, when a service was asked */
  known?: KnownValues;
  /** the service's label names, folded */
  knownLabels?: ReadonlySet<string>;
  /** write nothing; return what would be written */
  dryRun?: boolean;
  /** the command as the report names it (`tmsync import testrail-xml export.xml`) */
  command: string;
}

export interface ImportExportsResult {
  format: string;
  detected: boolean;
  files: ImportFile[];
  summary: ImportSummary;
  report: ImportReport;
  /** the text of import-report.md (written into the root unless `dryRun`) */
  reportText: string;
  reportPath: string;
}

/** How much of a file detection looks at. */
const HEAD = 64 * 1024;
/** New files written durably at a time. */
const WRITE_CHUNK = 2_000;
/** The report an import writes into the repository root. */
export const IMPORT_REPORT_FILE = 'import-report.md';

async function readExport(file: string, cwd: string, encoding: ImportEncoding | undefined): Promise<DecodedText> {
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(cwd, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TmsyncError('import_not_found', `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`, {
      hint: code === 'EISDIR' ? 'name the export files themselves (a shell glob such as dir/*.md)' : 'check the path of the export file',
      details: { file },
    });
  }
  return decodeImport(bytes, file, encoding);
}

/** The reader for `text`: the one scoring highest, or an error naming the candidates. */
export function detectReader(text: string, file: string): ImportReader {
  const head = text.slice(0, HEAD);
  const scored = IMPORT_READERS.map((r) => ({ r, score: r.detect(head, file) })).filter((x) => x.score > 0);
  const best = Math.max(0, ...scored.map((x) => x.score));
  const top = scored.filter((x) => x.score === best);
  if (top.length === 1) return top[0].r;
  const names = IMPORT_READERS.map((r) => r.name).join(', ');
  if (top.length === 0) {
    throw new TmsyncError('import_format_unknown', `${file} matches no export format tmsync reads`, {
      hint: `name the format: tmsync import FORMAT ${file} (one of ${names})`,
      details: { file },
    });
  }
  throw new TmsyncError('import_format_unknown', `${file} could be ${top.map((x) => x.r.name).join(' or ')}`, {
    hint: `name the format: tmsync import ${top[0].r.name} ${file}`,
    details: { file, candidates: top.map((x) => x.r.name) },
  });
}

function chooseReader(format: string | undefined, first: DecodedText, file: string): { reader: ImportReader; detected: boolean } {
  if (format === undefined) return { reader: detectReader(first.text, file), detected: true };
  const reader = importReader(format);
  if (!reader) {
    throw new TmsyncError('import_format_unknown', `${format} is not an export format tmsync reads`, {
      hint: `use one of ${IMPORT_READERS.map((r) => r.name).join(', ')}, or leave FORMAT out to detect it`,
      details: { format },
    });
  }
  return { reader, detected: false };
}

/**
 * The model of one decoded export, the text let go. In a function of its own: a register of the
 * caller's frame that held the text as an argument would keep it alive until the import ends.
 */
function readModel(reader: ImportReader, decoded: DecodedText, context: ReadImportContext): ImportedProject {
  const text = decoded.text;
  decoded.text = '';
  return reader.read(text, context);
}

function mergeProjects(projects: readonly ImportedProject[]): ImportedProject {
  if (projects.length === 1) return projects[0];
  const out: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  for (const p of projects) {
    for (const f of p.folders) out.folders.push(f);
    for (const g of p.stepGroups) out.stepGroups.push(g);
    for (const c of p.cases) out.cases.push(c);
  }
  return out;
}

const ORDER = { case: ['id', 'title', ...CASE_FIELD_KEYS, SOURCE_KEY], step_group: ['id', 'title', ...STEP_GROUP_FIELD_KEYS, SOURCE_KEY] } as const;

/** Writes the files: new ones in one durable batch, then updates and moves key by key. */
async function writeImportFiles(root: string, files: ImportFile[], context: UseCaseContext): Promise<void> {
  type Create = Extract<ImportFile, { action: 'create' }>;
  const creates = files.flatMap((f, i): { i: number; f: Create }[] => (f.action === 'create' ? [{ i, f }] : []));
  // in chunks, each durable on its own: a rendered file and the document behind it are let go
  // once written, so 50,000 new files are never all in memory
  for (let start = 0; start < creates.length; start += WRITE_CHUNK) {
    const chunk = creates.slice(start, start + WRITE_CHUNK);
    await writeFilesAtomic(
      chunk.map(({ f }) => ({ file: join(root, f.path), content: () => f.content })),
      { root },
    );
    for (const { i, f } of chunk) files[i] = { action: f.action, kind: f.kind, path: f.path, content: '', ...(f.source !== undefined ? { source: f.source } : {}) };
    context.memory?.check();
  }
  for (const f of files) {
    if (f.action !== 'update') continue;
    if (f.renameFrom !== undefined) {
      const old = await readFile(join(root, f.renameFrom), 'utf8');
      const text = formatFor(f.path).editDocument(old, f.fields, { file: f.path, order: ORDER[f.kind] });
      await writeFileAtomic(join(root, f.path), text, { root });
      await unlink(join(root, f.renameFrom));
    } else {
      await setFileFields(join(root, f.path), f.fields, { root, order: ORDER[f.kind] });
    }
  }
}

/**
 * The deepest directory holding every file (`''` when they share none). A format that keeps its
 * tree in directories (testomatio-md: parent suites) takes the directories below it as folders,
 * so that the files of a shell glob over `export/` root the tree at `export/`.
 */
export function commonDirectory(files: readonly string[]): string {
  const dirs = files.map((f) => f.replace(/\\/g, '/').split('/').slice(0, -1));
  let n = 0;
  while (dirs.length > 0 && dirs.every((d) => n < d.length && d[n] === dirs[0][n])) n++;
  return (dirs[0] ?? []).slice(0, n).join('/');
}

export async function importExports(options: ImportExportsOptions, context: UseCaseContext = {}): Promise<ImportExportsResult> {
  if (options.files.length === 0) {
    throw new TmsyncError('invalid_arguments', 'no export file given', { hint: 'tmsync import [FORMAT] FILE…' });
  }
  const first = await readExport(options.files[0], options.cwd, options.encoding);
  const { reader, detected } = chooseReader(options.format, first, options.files[0]);
  const report = new ImportReport();
  const columns = options.map?.columns;
  const encodings: ImportSummary['encodings'] = [];
  const projects: ImportedProject[] = [];
  const exportRoot = commonDirectory(options.files);
  // one decoded text at a time: each is let go once its model is read
  for (const [i, file] of options.files.entries()) {
    const decoded = i === 0 ? first : await readExport(file, options.cwd, options.encoding);
    encodings.push({ file, encoding: decoded.encoding, how: decoded.how });
    // its bytes (the file's size, outside the heap) are garbage once decoded: gone before the read
    // builds the model beside the text
    context.memory?.collect();
    projects.push(readModel(reader, decoded, { file, report, root: exportRoot, ...(columns ? { columns } : {}) }));
    // the decoded export (about twice the file's size) is garbage now
    context.memory?.collect();
  }
  let project: ImportedProject | undefined = mergeProjects(projects);
  projects.length = 0;
  if (project.cases.length === 0 && project.stepGroups.length === 0) report.note('The export holds no test cases.');

  const scanned = await scanRepository(options.root, options.casesDir, options.stepGroupsDir);
  const values = (options.map?.values ?? {}) as ValueMap;
  const built = buildImportFiles(project, scanned, {
    tool: reader.tool,
    casesDir: options.casesDir,
    stepGroupsDir: options.stepGroupsDir,
    under: options.under ?? [],
    values,
    ...(options.known ? { known: options.known } : {}),
    ...(options.knownLabels ? { knownLabels: options.knownLabels } : {}),
    report,
  });
  // the files hold what they need of it: the model can go
  project = undefined;
  context.memory?.collect();
  const items = built.files.filter((f) => f.kind !== 'folder');
  const summary: ImportSummary = {
    command: options.command,
    format: reader.name,
    detected,
    encodings,
    counts: {
      created: items.filter((f) => f.action === 'create').length,
      updated: items.filter((f) => f.action === 'update' && f.renameFrom === undefined).length,
      moved: items.filter((f) => f.action === 'update' && f.renameFrom !== undefined).length,
      unchanged: built.unchanged,
      folders: built.files.length - items.length,
    },
    vanished: built.vanished,
    unmapped: built.unmapped,
    proposedMap: proposeValueMap(built.seen, values, options.known),
  };
  const reportText = renderImportReport(summary, report);
  const reportPath = join(options.root, IMPORT_REPORT_FILE);
  if (!options.dryRun) {
    await writeImportFiles(options.root, built.files, context);
    await writeFileAtomic(reportPath, reportText, { root: options.root });
  }
  context.memory?.finish();
  return { format: reader.name, detected, files: built.files, summary, report, reportText, reportPath };
}
