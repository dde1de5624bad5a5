import type { FormatParseResult, ItemFileKind, RepositoryFormat } from './repository-format.js';
import type { ReadOptions } from './case-file.js';
import { yamlFormat } from './yaml-format.js';
import { gherkinFormat } from './gherkin-format.js';

export type { RepositoryFormat } from './repository-format.js';

/**
 * The file formats of a tests repository. Everything that reads or writes an item's file (the
 * loader, write-back, pull) goes through the format that claims the file's name, so a second
 * format (Gherkin `.feature` files) is one module implementing {@link RepositoryFormat} plus its
 * tests. YAML (`yaml-format.ts`) is the first. docs/architecture.md, "Adding a file format".
 */

const formats: RepositoryFormat[] = [yamlFormat, gherkinFormat];

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

/** The format claiming this file name (or path, or item reference `file#at`), with the extension it matched; undefined: none. */
function formatMatch(name: string): { format: RepositoryFormat; extension: string } | undefined {
  const found = matchName(name);
  if (found || !name.includes('#')) return found;
  const ref = splitItemRef(name);
  return ref.at === undefined ? undefined : matchName(ref.file);
}

function matchName(name: string): { format: RepositoryFormat; extension: string } | undefined {
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
      return format.parseCase !== undefined || format.parseItems !== undefined;
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
    kind === 'case' ? (format.parseCase ? format.parseCase(file, text, read) : format.parseItems?.(file, text, read)) : kind === 'step_group' ? format.parseStepGroup?.(file, key, text, read) : format.parseFolder?.(file, text);
  if (!parsed) throw new Error(`format ${format.name} holds no ${kind} files (${file})`);
  return parsed;
}

export { itemRef } from '../model.js';

/**
 * An item reference split into its file and address. Only a `#` after the name of a format holding
 * several items per file starts an address: a YAML file named `a#b.yaml` is a file.
 */
export function splitItemRef(ref: string): { file: string; at?: string } {
  const i = ref.lastIndexOf('#');
  if (i <= 0) return { file: ref };
  const file = ref.slice(0, i);
  const m = matchName(file);
  return m?.format.parseItems !== undefined && !matchName(ref) ? { file, at: ref.slice(i + 1) } : { file: ref };
}
