import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredStepGroup } from '../model.js';
import type { Parsed, ReadOptions } from './case-file.js';
import type { ParsedFolderFile } from './folder-file.js';
import { yamlFormat } from './yaml-format.js';

/**
 * The file formats of a tests repository. Everything that reads or writes an item's file (the
 * loader, write-back, pull) goes through the format that claims the file's name, so a second
 * format (Gherkin `.feature` files) is one module implementing {@link RepositoryFormat} plus its
 * tests. YAML (`yaml-format.ts`) is the first. docs/architecture.md, "Adding a file format".
 */

/** The kinds of item file a repository holds. */
export type ItemFileKind = 'case' | 'step_group' | 'folder';

/** What parsing one file gives: the item (with the positions rules report at), or only problems. */
export interface FormatParseResult<T> {
  parsed?: T;
  /** each located as file:line:col (1-based) in this file; warnings have `severity: 'warning'` */
  problems: Problem[];
}

/** What a format renders and edits: an item as its file's data (`documents.ts`). */
export type ItemDocument = Record<string, unknown>;

export interface RenderFileOptions {
  /** the file's path relative to the repository root (a format may refer to it, e.g. for a schema) */
  path: string;
}

export interface EditFileOptions {
  /** the file as messages name it */
  file: string;
  /**
   * the canonical key order of the kind (`MANAGED_KEYS`): a key the file does not hold yet goes
   * where a new file would have it; @default undefined (new keys first, which is right for `id`)
   */
  order?: readonly string[];
}

export interface RepositoryFormat {
  /** how problems and docs name the format (`yaml`) */
  readonly name: string;
  /** the file name endings it claims, lower case, dot included (`.yaml`); the longest match wins */
  readonly extensions: readonly string[];
  /**
   * True for a format every parse worker thread has (registered by this module itself): files of
   * other formats are parsed in the calling thread.
   */
  readonly builtIn?: boolean;
  /**
   * A case file → the case (its `folderPath` is filled in by the loader) or problems. Pure: no
   * I/O, never throws on bad content. Absent: the format holds no cases.
   */
  parseCase?(file: string, text: string, options?: ReadOptions): FormatParseResult<Parsed<DesiredCase>>;
  /** A step group file (`key`: its `use:` key, the file name without its extension). */
  parseStepGroup?(file: string, key: string, text: string, options?: ReadOptions): FormatParseResult<Parsed<DesiredStepGroup>>;
  /** A folder's settings file (`_folder` + an extension of the format). */
  parseFolder?(file: string, text: string): FormatParseResult<ParsedFolderFile>;
  /**
   * A new file holding `document` (absent keys are undefined and left out), in the document's
   * key order. Reading the text back gives the same item. Pure.
   */
  render(kind: ItemFileKind, document: ItemDocument, options: RenderFileOptions): string;
  /**
   * The top-level keys of a file as plain data (the document): `{}` when the text holds none (an
   * empty file), undefined when it does not parse (never throws). What pull compares with the
   * service, and where write-back reads an `id` from.
   */
  readDocument(text: string): ItemDocument | undefined;
  /**
   * The file's text with `fields` set (undefined removes a key) and everything else kept: comments,
   * key order, formatting of the keys left alone. `text` undefined: a new file. Throws a
   * `TmsyncError` when the text cannot be edited (it does not parse). Line endings and a
   * byte-order mark are kept by the caller (`setFileFields`). Pull's field-level edits and
   * write-back's `id` both come here.
   */
  editDocument(text: string | undefined, fields: ItemDocument, options: EditFileOptions): string;
}

const formats: RepositoryFormat[] = [yamlFormat];

/**
 * Adds a format; returns what removes it again (tests). A format claiming an extension another
 * one claims is refused.
 */
export function registerFormat(format: RepositoryFormat): () => void {
  for (const ext of format.extensions) {
    if (ext !== ext.toLowerCase() || !ext.startsWith('.')) throw new Error(`format ${format.name}: extension ${ext} must be lower case and start with a dot`);
    const other = formats.find((f) => f.extensions.includes(ext));
    if (other) throw new Error(`format ${format.name}: ${ext} is claimed by ${other.name} already`);
  }
  formats.push(format);
  return () => {
    const i = formats.indexOf(format);
    if (i !== -1) formats.splice(i, 1);
  };
}

/** The formats registered, YAML first. */
export function repositoryFormats(): readonly RepositoryFormat[] {
  return formats;
}

/** The format claiming this file name (or path), with the extension it matched; undefined: none. */
export function formatMatch(name: string): { format: RepositoryFormat; extension: string } | undefined {
  const lower = name.toLowerCase();
  let best: { format: RepositoryFormat; extension: string } | undefined;
  for (const format of formats) {
    for (const extension of format.extensions) {
      if (lower.endsWith(extension) && lower.length > extension.length && (!best || extension.length > best.extension.length)) best = { format, extension };
    }
  }
  return best;
}

/** The format claiming this file name (or path); undefined: no format does. */
export function formatOf(name: string): RepositoryFormat | undefined {
  return formatMatch(name)?.format;
}

/** {@link formatOf}, for a file an item was loaded from (so some format claims it). */
export function formatFor(name: string): RepositoryFormat {
  const format = formatOf(name);
  if (!format) throw new Error(`no repository format claims ${name}`);
  return format;
}

/** The format new files are written in (pull, init): YAML. */
export function defaultFormat(): RepositoryFormat {
  return yamlFormat;
}

/** The file name without the extension its format claims (`checkout.yaml` → `checkout`). */
export function stemOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const m = formatMatch(base);
  return m ? base.slice(0, base.length - m.extension.length) : base;
}

/** Whether a format holding `kind` claims this file name. */
export function holds(name: string, kind: ItemFileKind): boolean {
  const format = formatOf(name);
  if (!format) return false;
  switch (kind) {
    case 'case':
      return format.parseCase !== undefined;
    case 'step_group':
      return format.parseStepGroup !== undefined;
    case 'folder':
      return format.parseFolder !== undefined;
  }
}

/** A folder's settings file: `_folder` and the extension of a format holding folders (`_folder.yaml`). */
export function isFolderFileName(name: string): boolean {
  return stemOf(name).toLowerCase() === '_folder' && holds(name, 'folder');
}

/** Parses one file with the format claiming its name (`FormatParseResult` of the kind). */
export function parseItemFile(kind: ItemFileKind, file: string, text: string, key = '', read: ReadOptions = {}): FormatParseResult<unknown> {
  const format = formatFor(file);
  const parsed =
    kind === 'case' ? format.parseCase?.(file, text, read) : kind === 'step_group' ? format.parseStepGroup?.(file, key, text, read) : format.parseFolder?.(file, text);
  if (!parsed) throw new Error(`format ${format.name} holds no ${kind} files (${file})`);
  return parsed;
}
