import { resolve } from 'node:path';
import { writeFileAtomic, shownPath, type WriteFileOptions } from './atomic-write.js';
import { fileOps, ioError, notRegularFileError } from './file-ops.js';
import { formatFor, type RepositoryFormat } from './format.js';
import type { ReadOptions } from './case-file.js';
import { decodeTextOrThrow, encodeText, type TextEncodingName } from './text-file.js';
import { editYamlText, type EditTextOptions } from './yaml-edit.js';

/** The field-level edit of one repository file on disk: read, edited by its format, written durably. */

interface SetFileFieldsOptions extends WriteFileOptions {
  /** see `EditFileOptions.order` */
  order?: readonly string[];
  /** the format to edit with @default the format claiming the file's name */
  format?: RepositoryFormat;
  /** the item's address in a file holding several (`EditFileOptions.at`) */
  at?: string;
  /** how the repository's files are read (`gherkin:` of tmsync.yaml) */
  read?: ReadOptions;
}

/**
 * Sets top-level keys of a repository file in place through its format (`editDocument`: comments,
 * key order and formatting kept; `undefined` removes a key). Creates the file when it is missing.
 * Keeps the file's encoding, Windows line endings and byte-order mark. Written atomically.
 */
export async function setFileFields(file: string, fields: Record<string, unknown>, options: SetFileFieldsOptions = {}): Promise<void> {
  const format = options.format ?? formatFor(file);
  const edit = { file, ...(options.order ? { order: options.order } : {}), ...(options.at !== undefined ? { at: options.at } : {}), ...(options.read ? { read: options.read } : {}) };
  await editFile(file, options, (text) => format.editDocument(text, fields, edit));
}

interface SetYamlFieldsOptions extends WriteFileOptions, Omit<EditTextOptions, 'file'> {}

/**
 * Sets top-level keys of a YAML file in place (`editYamlText`), whatever its name: an existing key
 * keeps its place (and a trailing comment on its value), a new key goes first in the mapping (so
 * `id` lands at the top) or at its place in `options.order`, `undefined` removes a key. Creates
 * the file when it is missing. Written atomically.
 */
export async function setYamlFields(file: string, fields: Record<string, unknown>, options: SetYamlFieldsOptions = {}): Promise<void> {
  const edit = { file, ...(options.order ? { order: options.order } : {}), ...(options.schemaComment !== undefined ? { schemaComment: options.schemaComment } : {}) };
  await editFile(file, options, (text) => editYamlText(text, fields, edit));
}

/** Reads the file (none: undefined), edits its text, and writes it back in its encoding. */
async function editFile(file: string, options: WriteFileOptions, edit: (text: string | undefined) => string): Promise<void> {
  const ops = fileOps(options.ops);
  let text: string | undefined;
  let encoding: TextEncodingName = 'utf-8';
  let bytes: Buffer | undefined;
  // reading a named pipe would wait for a writer forever; a directory or device is not a YAML file
  const st = await ops.stat(file).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(ioError(err, 'read', file))));
  if (st && !st.isFile()) {
    throw notRegularFileError(options.root ? shownPath(resolve(file), resolve(options.root)) : file, st, 'move it away, or point the command at another path');
  }
  try {
    bytes = await ops.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(err, 'read', file);
  }
  if (bytes !== undefined) {
    // a file that is not exactly readable (Latin-1 saved as .yaml) is never rewritten
    ({ text, encoding } = decodeTextOrThrow(bytes, options.root ? shownPath(resolve(file), resolve(options.root)) : file));
  }
  let out = edit(text);
  // keep Windows line endings and a byte-order mark where the author has them
  if (text?.includes('\r\n')) out = out.replace(/\r?\n/g, '\r\n');
  if (text?.startsWith('\uFEFF') && !out.startsWith('\uFEFF')) out = `\uFEFF${out}`;
  await writeFileAtomic(file, encodeText(out, encoding), {
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(options.ops ? { ops: options.ops } : {}),
    ...(options.session ? { session: options.session } : {}),
  });
}
