import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredStepGroup } from '../model.js';
import type { Parsed, ReadOptions } from './case-file.js';
import type { ParsedFolderFile } from './folder-file.js';

/**
 * The interface every file format of a tests repository implements (`format.ts` holds the registry;
 * docs/architecture.md, "Adding a file format").
 */

/** The kinds of item file a repository holds. */
export type ItemFileKind = 'case' | 'step_group' | 'folder';

/** What parsing one file gives: the item (with the positions rules report at), or only problems. */
export interface FormatParseResult<T> {
  parsed?: T;
  /** each located as file:line:col (1-based) in this file; warnings have `severity: 'warning'` */
  problems: Problem[];
}

/**
 * What a file holding several items gives (`RepositoryFormat.parseItems`): each item carries its
 * address in the file (`at`), and a case may sit in folders below its file's directory (`folders`).
 */
export interface ParsedItems {
  cases: (Parsed<DesiredCase> & { folders?: string[] })[];
  stepGroups: Parsed<DesiredStepGroup>[];
}

/** What a format renders and edits: an item as its file's data (`documents.ts`). */
export type ItemDocument = Record<string, unknown>;

export interface RenderFileOptions {
  /** the file's path relative to the repository root (a format may refer to it, e.g. for a schema) */
  path: string;
}

export interface ReadDocumentOptions {
  /** the item's address in a file holding several (`DesiredCase.at`) */
  at?: string;
  /** the file's path relative to the repository root */
  file?: string;
  /** how the repository's files are read (`gherkin:` of tmsync.yaml) */
  read?: ReadOptions;
}

export interface EditFileOptions {
  /** the file as messages name it */
  file: string;
  /**
   * the canonical key order of the kind (`MANAGED_KEYS`): a key the file does not hold yet goes
   * where a new file would have it; @default undefined (new keys first, which is right for `id`)
   */
  order?: readonly string[];
  /** the item's address in a file holding several (`DesiredCase.at`); undefined: the file's one item */
  at?: string;
  /** how the repository's files are read (`gherkin:` of tmsync.yaml) */
  read?: ReadOptions;
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
  /**
   * A file holding several cases (and step groups), instead of `parseCase`: every item with its
   * address in the file (`at`, stable while other items of the file get their ids written) and
   * the folder levels it adds below the file's directory. Pure, never throws on bad content.
   */
  parseItems?(file: string, text: string, options?: ReadOptions): FormatParseResult<ParsedItems>;
  /**
   * The document keys `editDocument` can write for a kind (pull leaves the others to the service's
   * copy, the next plan sends the file's); absent: every key.
   */
  readonly writes?: Partial<Record<ItemFileKind, readonly string[]>>;
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
   * service, and where write-back reads an `id` from. `options.at`: the item's address in a file
   * holding several (`parseItems`); its document, `{}` when the file has no such item.
   */
  readDocument(text: string, options?: ReadDocumentOptions): ItemDocument | undefined;
  /**
   * The file's text with `fields` set (undefined removes a key) and everything else kept: comments,
   * key order, formatting of the keys left alone. `text` undefined: a new file. Throws a
   * `TmsyncError` when the text cannot be edited (it does not parse). `options.at`: the item of a
   * file holding several. Line endings and a
   * byte-order mark are kept by the caller (`setFileFields`). Pull's field-level edits and
   * write-back's `id` both come here.
   */
  editDocument(text: string | undefined, fields: ItemDocument, options: EditFileOptions): string;
}
