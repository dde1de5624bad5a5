import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { TmsyncError } from '../../errors.js';
import { encodingOf, ENCODING_LABELS, type ImportEncoding } from '../../import/decode.js';
import { IMPORT_READERS, importReader } from '../../import/readers.js';
import { CONFIG_FILE_NAME, findConfigFile, loadConfig, type TmsyncConfig } from '../../repository/config.js';
import { importMapSchema, type ImportMapInput } from '../../repository/file-schemas.js';
import { writeFileAtomic } from '../../repository/atomic-write.js';
import { starterFiles } from '../../repository/starter.js';
import { CONFIG_DEFAULTS } from '../../repository/config.js';
import { safeInline } from '../../safe-text.js';
import { fetchRestoreDirectory } from '../../backup/restore-target.js';
import { foldValue, type KnownValues } from '../../import/value-map.js';
import type { LookupEntry } from '../../model.js';
import { loadTarget } from '../target.js';
import { useCaseContext } from '../use-case-context.js';
import { importExports, type ImportExportsResult } from '../../usecases/import-exports.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { plural } from '../words.js';
import { parseFolderPath } from './pull.js';
import { reportImportFormat, runImportReports, withReportHint } from './import-reports.js';

interface ImportOptions extends GlobalOptions {
  /** positional: [FORMAT] FILE… */
  args: string[];
  /** the repository to write into @default the one whose tmsync.yaml is found from here upward, else cwd */
  dir?: string;
  /** every imported folder goes under this folder path (`A/B`) */
  folder?: string;
  /** a YAML file with `values:` and `columns:` (over tmsync.yaml's `import:`) */
  map?: string;
  dryRun?: boolean;
  encoding?: string;
  /** false (`--no-service`): do not ask the service for its lookups, users and labels */
  service?: boolean;
  /** test reports only: a `results push` mapping file (tests it names are covered) */
  mapping?: string;
}

/** What the service calls its values, for the value map and labels (undefined: no service configured or reachable). */
async function serviceValues(options: ImportOptions, configFile: string | undefined, io: CliIo): Promise<{ known: KnownValues; knownLabels: Set<string> } | undefined> {
  if (options.service === false) return undefined;
  let target;
  try {
    target = await loadTarget({ ...options, ...(configFile ? { config: configFile } : {}) }, io);
  } catch (err) {
    if (err instanceof TmsyncError && OFFLINE_CODES.has(err.code)) return undefined;
    throw err;
  }
  try {
    const dir = await fetchRestoreDirectory(target.client, io.signal);
    const names = (list: readonly LookupEntry[]) => new Map(list.flatMap((e) => [[foldValue(e.name), e.name] as const, ...(e.alias ? [[foldValue(e.alias), e.name] as const] : [])]));
    const users = new Map(
      dir.users.flatMap((u) => [[foldValue(u.email), u.email] as const, ...(u.firstName || u.lastName ? [[foldValue(`${u.firstName ?? ''} ${u.lastName ?? ''}`), u.email] as const] : [])]),
    );
    return {
      known: { priority: names(dir.lookups.priorities), type: names(dir.lookups.types), status: names(dir.lookups.statuses), automation_type: names(dir.lookups.automationTypes), owner: users, reviewer: users },
      knownLabels: new Set(dir.labels.map((l) => foldValue(l.name))),
    };
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'aborted') throw err;
    io.stderr(`note: the service could not be read (${safeInline(err instanceof Error ? err.message : String(err))}); the value map is proposed from the export alone (--no-service skips this)`);
    return undefined;
  } finally {
    await target.close();
  }
}

/** Errors of a repository that names no service (or no key here): the import runs offline. */
const OFFLINE_CODES = new Set(['missing_base_url', 'missing_api_key', 'missing_project', 'config_not_found']);

/** Where the import writes and the configuration it reads (as pull finds them). */
async function importRoot(options: ImportOptions): Promise<{ root: string; config?: TmsyncConfig; configFile?: string }> {
  const given = options.config !== undefined ? resolve(options.cwd, options.config) : undefined;
  let file = given;
  let root: string;
  if (options.dir !== undefined) {
    root = resolve(options.cwd, options.dir);
    const own = join(root, CONFIG_FILE_NAME);
    if (!file && (await stat(own).then((s) => s.isFile(), () => false))) file = own;
  } else {
    file ??= (await findConfigFile(options.cwd)).file;
    root = file ? dirname(file) : resolve(options.cwd);
  }
  if (!file) return { root };
  const loaded = await loadConfig(file);
  return { root: options.dir !== undefined ? root : loaded.root, config: loaded.config, configFile: loaded.file };
}

/** `--map FILE` over `import:` of tmsync.yaml: values and columns merged field by field. */
async function readMap(options: ImportOptions, config: TmsyncConfig | undefined): Promise<ImportMapInput> {
  const base = config?.import ?? {};
  if (options.map === undefined) return base;
  let data: unknown;
  try {
    data = parse(await readFile(resolve(options.cwd, options.map), 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TmsyncError('invalid_import_map', `cannot read the map ${options.map}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message.split('\n')[0]}`, {
      hint: 'give --map a YAML file with `values:` (per field: source value → the service\'s name) and/or `columns:`',
      details: { file: options.map },
    });
  }
  // a map copied from import-report.md keeps its `import:` key
  const body = data && typeof data === 'object' && 'import' in data ? (data).import : (data ?? {});
  const result = importMapSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new TmsyncError('invalid_import_map', `${options.map}: ${issue.path.join('.') || 'the file'}: ${issue.message}`, {
      hint: 'the map holds `values:` (priority, type, status, automation_type, owner, reviewer: source value → service name) and `columns:` (field → header names)',
      details: { file: options.map },
    });
  }
  const values: Record<string, unknown> = { ...base.values };
  for (const [field, m] of Object.entries(result.data.values ?? {})) values[field] = { ...(values[field] as object | undefined), ...m };
  return { values: values, columns: { ...base.columns, ...result.data.columns } };
}

/** `[FORMAT] FILE…`: the first word is a format when it names one and is not a file. */
async function splitArgs(args: readonly string[], cwd: string): Promise<{ format?: string; files: string[] }> {
  const [first, ...rest] = args;
  if (first === undefined) return { files: [] };
  const isFile = await stat(resolve(cwd, first)).then(() => true, () => false);
  if (!isFile && (importReader(first) || reportImportFormat(first) || rest.length > 0)) return { format: first, files: rest };
  return { files: [...args] };
}

function encodingOption(label: string | undefined): ImportEncoding | undefined {
  if (label === undefined) return undefined;
  const encoding = encodingOf(label);
  if (!encoding) throw new TmsyncError('invalid_arguments', `--encoding ${label} is not an encoding tmsync reads`, { hint: `use one of ${ENCODING_LABELS.join(', ')}` });
  return encoding;
}

/**
 * `tmsync import [FORMAT] FILE… [--dir DIR] [--folder PATH] [--map FILE] [--dry-run]`: other
 * tools' exports into the tests repository (docs/import.md). Writes files only: `plan` shows
 * what the service would get. Exit 0 when the files are written (values left unmapped are listed;
 * `validate` names them).
 */
export async function runImport(options: ImportOptions, io: CliIo): Promise<number> {
  const { format, files } = await splitArgs(options.args, options.cwd);
  // a test report's format word: cases for its automated tests (docs/automation.md)
  const report = format !== undefined ? reportImportFormat(format) : undefined;
  if (report !== undefined) return runImportReports(options, report, files, io, { importRoot, serviceValues });
  if (files.length === 0) {
    throw new TmsyncError('invalid_arguments', 'no export file given', {
      hint: `tmsync import [FORMAT] FILE…; FORMAT is one of ${IMPORT_READERS.map((r) => r.name).join(', ')} (left out: detected)`,
    });
  }
  const { root, config, configFile } = await importRoot(options);
  const service = await serviceValues(options, configFile, io);
  const folder = parseFolderPath(options.folder);
  const encoding = encodingOption(options.encoding);
  const map = await readMap(options, config);
  const result = await withReportHint(files, options.cwd, () => importExports({
    root,
    casesDir: config?.casesDir ?? CONFIG_DEFAULTS.casesDir,
    stepGroupsDir: config?.stepGroupsDir ?? CONFIG_DEFAULTS.stepGroupsDir,
    files,
    cwd: options.cwd,
    ...(format !== undefined ? { format } : {}),
    ...(encoding ? { encoding } : {}),
    ...(folder ? { under: folder } : {}),
    map,
    ...(service ? { known: service.known, knownLabels: service.knownLabels } : {}),
    dryRun: options.dryRun === true,
    command: ['tmsync import', ...options.args].join(' '),
  }, useCaseContext(io)));
  const wroteConfig = !config && !options.dryRun;
  if (wroteConfig) await writeFileAtomic(join(root, CONFIG_FILE_NAME), starterFiles(undefined, { example: false })[0].content, { root });
  printImport(result, options, io, wroteConfig ? relative(options.cwd, join(root, CONFIG_FILE_NAME)) || CONFIG_FILE_NAME : undefined);
  return EXIT.OK;
}

function printImport(result: ImportExportsResult, options: ImportOptions, io: CliIo, wroteConfig: string | undefined): void {
  const s = result.summary;
  const shown = (p: string) => relative(options.cwd, resolve(dirname(result.reportPath), p)) || p;
  if (options.json) {
    io.stdout(
      jsonOutput({
        format: s.format,
        detected: s.detected,
        dry_run: options.dryRun === true,
        encodings: s.encodings,
        counts: s.counts,
        files: result.files.map((f) => ({ action: f.action === 'update' && f.renameFrom ? 'move' : f.action, kind: f.kind, path: f.path, ...(f.action === 'update' && f.renameFrom ? { from: f.renameFrom } : {}) })),
        report: { entries: result.report.entries, attachments: result.report.attachments, notes: result.report.notes },
        unmapped: s.unmapped,
        vanished: s.vanished,
        proposed_map: s.proposedMap,
        ...(options.dryRun ? {} : { report_file: shown(result.reportPath) }),
      }),
    );
    return;
  }
  io.stderr(`Format: ${s.format}${s.detected ? ' (detected from the content; name it to be sure: tmsync import ' + s.format + ' …)' : ''}`);
  if (options.dryRun) {
    for (const f of result.files) io.stderr(`  ${f.action === 'create' ? '+' : f.renameFrom ? '>' : '~'} ${safeInline(shown(f.path))}${f.action === 'update' && f.renameFrom ? ` (from ${safeInline(shown(f.renameFrom))})` : ''}`);
  }
  const c = s.counts;
  io.stderr(`${options.dryRun ? 'Would write' : 'Wrote'}: ${plural(c.created, 'new file')}, ${plural(c.updated, 'updated file')}, ${plural(c.moved, 'moved file')}; ${c.unchanged} unchanged.`);
  for (const e of result.report.entries) io.stderr(`  ${e.action} ${plural(e.count, 'value')} of ${safeInline(e.field)}: ${safeInline(e.rule)}`);
  if (result.report.attachments.count > 0) io.stderr(`  ${plural(result.report.attachments.count, 'attachment link')} kept in the texts`);
  for (const n of result.report.notes) io.stderr(`  note: ${safeInline(n)}`);
  for (const u of s.unmapped.slice(0, 20)) io.stderr(`  unmapped ${u.field} \`${safeInline(u.value)}\` in ${safeInline(shown(u.path))}`);
  if (s.vanished.length > 0) io.stderr(`${plural(s.vanished.length, 'file')} of earlier imports are no longer in the export (kept; listed in the report).`);
  if (wroteConfig) io.stderr(`Wrote a starter ${wroteConfig}: set project, base_url and defaults.`);
  if (!options.dryRun) io.stderr(`Report: ${shown(result.reportPath)}. Next: tmsync validate, then tmsync plan.`);
}
