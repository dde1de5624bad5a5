import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TmsyncError } from '../errors.js';
import type { RunCaseFilePart } from '../remote/encode.js';
import { ATTACHMENT_DEFAULTS, ATTACHMENT_SCOPES, type AttachmentScope } from './attachment-defaults.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';

export { ATTACHMENT_DEFAULTS, ATTACHMENT_SCOPES, DEFAULT_ATTACHMENT_TYPES, type AttachmentScope } from './attachment-defaults.js';

/**
 * The files a push sends: each record's attachments resolved (a path relative to its report, an
 * absolute path, a file:// URL, or bytes the report holds), then chosen per case by outcome, type
 * and size. Nothing here is fatal: a file that cannot be found or read is listed, never thrown.
 * The bytes are read only when a request body is built (see {@link filePart}).
 */

const MIB = 1024 * 1024;

export interface AttachmentOptions {
  /** @default 'failed' */
  scope?: AttachmentScope;
  /** extensions (lower case, no dot), or 'all' @default DEFAULT_ATTACHMENT_TYPES */
  types?: readonly string[] | 'all';
  /** @default 10 MiB */
  maxFileBytes?: number;
  /** @default 50 MiB */
  maxBatchBytes?: number;
  /** the directory report paths are relative to @default the process's working directory */
  cwd?: string;
}

/** A file chosen to go with a case's result. */
export interface CaseFile {
  /** as the report wrote it (a path or URL), or `inline: <name>` for bytes the report holds */
  source: string;
  /** the name it is sent under */
  fileName: string;
  mediaType: string;
  bytes: number;
  from: { path: string } | { body: string; encoding: 'base64' | 'identity' };
}

export type SkipReason = 'type' | 'too_large' | 'batch_limit';

/** A file not sent, and why (`missing`: not found or not readable). */
export interface FileNotice {
  caseId: string;
  source: string;
  reason: string;
  bytes?: number;
}

export interface CaseSelection {
  /** the files each case sends, in report order */
  files: Map<string, CaseFile[]>;
  skipped: (FileNotice & { reason: SkipReason })[];
  missing: FileNotice[];
  /** files of cases the scope leaves out (e.g. passed cases under `failed`) */
  notSelected: number;
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', svg: 'image/svg+xml',
  webm: 'video/webm', mp4: 'video/mp4', zip: 'application/zip', txt: 'text/plain', log: 'text/plain', json: 'application/json',
  xml: 'application/xml', html: 'text/html', htm: 'text/html', csv: 'text/csv', md: 'text/markdown', pdf: 'application/pdf',
};

/** The extension a media type is written with (`image/png` → `png`), for inline bytes without a name. */
function extensionOf(mediaType: string | undefined): string | undefined {
  const type = mediaType?.split(';')[0].trim().toLowerCase();
  if (type === undefined) return undefined;
  if (type === 'image/jpeg') return 'jpg';
  if (type === 'text/plain') return 'txt';
  const known = Object.entries(MEDIA_TYPES).find(([, t]) => t === type)?.[0];
  // Cucumber's `log()` lines come as text/x.cucumber.log+plain: text all the same
  return known ?? (type.startsWith('text/') ? 'txt' : undefined);
}

/** `--attachment-types png,jpg` / `all` → the option; a clear error for an empty list. */
export function parseAttachmentTypes(value: string): readonly string[] | 'all' {
  if (value.trim().toLowerCase() === 'all') return 'all';
  const types = value.split(',').map((t) => t.trim().replace(/^\./, '').toLowerCase()).filter((t) => t !== '');
  if (types.length === 0) {
    throw new TmsyncError('invalid_arguments', '--attachment-types names no file type', { hint: 'give extensions separated by commas (png,jpg,zip) or all' });
  }
  return types;
}

/** The options with their defaults, checked: a scope or size out of range fails before anything is read. */
export function attachmentSettings(options: AttachmentOptions = {}): Required<AttachmentOptions> {
  const s = {
    scope: options.scope ?? ATTACHMENT_DEFAULTS.scope,
    types: options.types ?? ATTACHMENT_DEFAULTS.types,
    maxFileBytes: options.maxFileBytes ?? ATTACHMENT_DEFAULTS.maxFileBytes,
    maxBatchBytes: options.maxBatchBytes ?? ATTACHMENT_DEFAULTS.maxBatchBytes,
    cwd: options.cwd ?? resolve('.'),
  };
  if (!ATTACHMENT_SCOPES.includes(s.scope)) {
    throw new TmsyncError('invalid_arguments', `--attachments ${String(s.scope)} is not one of ${ATTACHMENT_SCOPES.join(', ')}`, {
      hint: 'failed sends the files of failed and errored cases (the default), all every case\'s, none no files',
    });
  }
  for (const [name, n] of [['--attachment-max-size', s.maxFileBytes], ['--attachment-batch-max-size', s.maxBatchBytes]] as const) {
    if (!Number.isInteger(n) || n < 1) {
      throw new TmsyncError('invalid_arguments', `${name} must be a whole number of bytes above 0 (or with a unit: 5MB, 512KB)`, { hint: `e.g. ${name} 10MB` });
    }
  }
  return s;
}

/** `10MB`, `512KB`, `2MiB`, `1048576` → bytes (binary multiples); NaN when unreadable. */
export function parseByteSize(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?\s*$/i.exec(value);
  if (!m) return NaN;
  const unit = (m[2] ?? 'b').toLowerCase()[0];
  const factor = unit === 'k' ? 1024 : unit === 'm' ? MIB : unit === 'g' ? 1024 * MIB : 1;
  return Math.round(Number(m[1]) * factor);
}

function failedOutcome(o: Outcome): boolean {
  return o === 'failed' || o === 'error';
}

/**
 * The files each case sends. `cases`: each case's outcome (the worst of its records) and every
 * record mapped to it; its files are gathered from all of them, each file once.
 */
export async function selectCaseFiles(
  cases: readonly { caseId: string; outcome: Outcome; records: readonly TestRecord[] }[],
  options: AttachmentOptions = {},
): Promise<CaseSelection> {
  const s = attachmentSettings(options);
  const out: CaseSelection = { files: new Map(), skipped: [], missing: [], notSelected: 0 };
  for (const c of cases) {
    const wanted = s.scope === 'all' || (s.scope === 'failed' && failedOutcome(c.outcome));
    const seen = new Set<string>();
    const files: CaseFile[] = [];
    let total = 0;
    for (const record of c.records) {
      for (const [n, a] of (record.attachments ?? []).entries()) {
        if (!wanted) {
          out.notSelected++;
          continue;
        }
        const found = await resolveAttachment(a, record, n, s.cwd);
        if ('reason' in found) {
          out.missing.push({ caseId: c.caseId, ...found });
          continue;
        }
        const key = 'path' in found.from ? found.from.path : `${found.fileName}\u0000${found.from.body.length}\u0000${found.from.body.slice(0, 64)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const ext = extname(found.fileName).slice(1).toLowerCase();
        const notice = { caseId: c.caseId, source: found.source, bytes: found.bytes };
        if (s.types !== 'all' && !s.types.includes(ext)) out.skipped.push({ ...notice, reason: 'type' });
        else if (found.bytes > s.maxFileBytes) out.skipped.push({ ...notice, reason: 'too_large' });
        else if (total + found.bytes > s.maxBatchBytes) out.skipped.push({ ...notice, reason: 'batch_limit' });
        else {
          total += found.bytes;
          files.push(found);
        }
      }
    }
    if (files.length > 0) out.files.set(c.caseId, files);
  }
  return out;
}

/** A record's attachment → the file to send, or why there is none. `n`: its place in the record, for a name. */
export async function resolveAttachment(a: RecordAttachment, record: Pick<TestRecord, 'report'>, n: number, cwd: string): Promise<CaseFile | { source: string; reason: string }> {
  if (a.body !== undefined) {
    const ext = (a.fileName ? extname(a.fileName).slice(1) : '') || extensionOf(a.mediaType) || 'bin';
    const fileName = a.fileName ?? `attachment-${n + 1}.${ext}`;
    const bytes = a.encoding === 'base64' ? Buffer.byteLength(a.body, 'base64') : Buffer.byteLength(a.body, 'utf8');
    return { source: `inline: ${fileName}`, fileName, mediaType: a.mediaType ?? MEDIA_TYPES[ext.toLowerCase()] ?? 'application/octet-stream', bytes, from: { body: a.body, encoding: a.encoding } };
  }
  const source = a.path;
  let path: string;
  try {
    path = /^file:/i.test(source) ? fileURLToPath(source) : isAbsolute(source) ? source : resolve(cwd, dirname(record.report), source);
  } catch (err) {
    return { source, reason: `not a file path: ${(err as Error).message}` };
  }
  try {
    const st = await stat(path);
    if (!st.isFile()) return { source, reason: 'not a file' };
    const fileName = a.fileName ?? basename(path);
    const ext = extname(fileName).slice(1).toLowerCase();
    return { source, fileName, mediaType: a.mediaType ?? MEDIA_TYPES[ext] ?? 'application/octet-stream', bytes: st.size, from: { path } };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { source, reason: code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable' : (err as Error).message };
  }
}

/**
 * The file part of a case's file: `attachments_<case index within the batch>_<n>`. Its bytes are
 * read when the request body is built (each attempt), so a retry sends the same bytes again and a
 * push holds only the files of the request in flight. `onUnreadable`: the file went away since it
 * was chosen (the part is then left out).
 */
export function filePart(file: CaseFile, caseIndex: number, n: number, onUnreadable: (file: CaseFile, reason: string) => void): RunCaseFilePart {
  return {
    part: `attachments_${caseIndex}_${n}`,
    fileName: file.fileName,
    mediaType: file.mediaType,
    read() {
      const from = file.from;
      if ('body' in from) return Buffer.from(from.body, from.encoding === 'base64' ? 'base64' : 'utf8');
      try {
        return readFileSync(from.path);
      } catch (err) {
        onUnreadable(file, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file when sent' : (err as Error).message);
        return undefined;
      }
    },
  };
}
