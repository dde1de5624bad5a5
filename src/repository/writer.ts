import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile as writeFileCallback, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, isMap, isScalar, parse, parseDocument, Scalar, visit } from 'yaml';
import type { ToStringOptions, YAMLMap } from 'yaml';
import { TmsyncError } from '../errors.js';
import { CASE_FIELDS, fieldOf, impliedTemplate, STEP_GROUP_FIELDS, type StepGroupFieldValues } from '../fields.js';
import type { DesiredCaseFields, DesiredGroupStep, DesiredStep } from '../model.js';
import { fastParseYaml } from './fast-yaml.js';
import { fileOps, ioError, notRegularFileError, type FileOps } from './file-ops.js';
import { decodeTextOrThrow, encodeText, type TextEncodingName } from './text-file.js';
import { isInside, processGone } from './walk.js';

/**
 * Output options shared by every writer: no folding of long lines (a diff of a long title
 * stays one line), multi-line text as `|` literal blocks.
 */
const TO_STRING: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  blockQuote: 'literal',
  indentSeq: true,
  flowCollectionPadding: false,
};

/**
 * Strings YAML 1.1 tools read as booleans or null. The `yaml` library (YAML 1.2) writes them
 * plain; we quote them so no other tool and no reader mistakes `yes` for `true`.
 */
const YAML11_SPECIAL = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|=|<<)$/;

/**
 * Multi-line text of only spaces, tabs and line breaks: the `yaml` library writes it as a block
 * scalar without an indentation indicator, which reads back differently.
 */
const BLANK_MULTILINE = /^[ \t\r\n]*\n[ \t\r\n]*$/;

function quoteSpecialStrings(node: unknown, allMultiline = false): void {
  visit(node as Document, {
    Scalar(_key, s) {
      if (typeof s.value !== 'string') return;
      if (YAML11_SPECIAL.test(s.value) || BLANK_MULTILINE.test(s.value) || (allMultiline && s.value.includes('\n'))) {
        s.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
}

/** A flow collection (`[a, b]`) cannot hold block scalars: only short one-line items go there. */
function flowable(node: unknown): boolean {
  let ok = true;
  visit(node as Document, {
    Scalar(_key, s) {
      if (typeof s.value === 'string' && (s.value.includes('\n') || s.value.includes('\r') || s.value.length > 80)) ok = false;
    },
    Map() {
      ok = false;
    },
  });
  return ok;
}

export interface RenderOptions {
  /** a `yaml-language-server: $schema=…` comment written as the first line (without `#`) */
  schemaComment?: string;
}

function render(obj: Record<string, unknown>, options: RenderOptions, flowKeys: string[] = []): string {
  const text = renderOnce(obj, options, flowKeys, false);
  // a safety net under the block-scalar corner cases of the yaml library: what we write must
  // read back as what we meant, or we fall back to double quotes, which are always exact. The
  // loader's fast read answers first (far cheaper, and a pull renders every file it writes); when
  // it declines the text or reads something else, the exact read decides, as before
  const fast = fastParseYaml(text);
  if (fast !== undefined && isDeepStrictEqual(fast.data, obj)) return text;
  if (isDeepStrictEqual(parse(text), obj)) return text;
  return renderOnce(obj, options, flowKeys, true);
}

function renderOnce(obj: Record<string, unknown>, options: RenderOptions, flowKeys: string[], allQuoted: boolean): string {
  const doc = new Document(obj);
  quoteSpecialStrings(doc, allQuoted);
  if (isMap(doc.contents)) {
    for (const key of flowKeys) {
      const node = doc.contents.get(key, true);
      if (isCollection(node) && flowable(node)) node.flow = true;
    }
  }
  if (options.schemaComment) doc.commentBefore = ` ${options.schemaComment}`;
  return doc.toString(TO_STRING);
}

export function renderSteps(steps: readonly DesiredStep[]): unknown[] {
  return steps.map((s) =>
    s.kind === 'use' ? { use: s.use } : s.expected === '' ? { action: s.action } : { action: s.action, expected: s.expected },
  );
}

/**
 * A test case as the YAML document's data, keys in the order people read them (the field table's,
 * after `id` and `title`); `template` only when the other keys do not imply it. Absent fields are
 * present with the value undefined: pull updates an existing file key by key from this, and removes
 * such keys; {@link renderCaseYaml} leaves them out.
 */
export function caseDocument(c: { id?: string; title: string; fields: DesiredCaseFields }): Record<string, unknown> {
  const f = c.fields;
  const implied = impliedTemplate((x) => fieldOf(f, x, 'model') !== undefined);
  const o: Record<string, unknown> = { id: c.id, title: c.title };
  for (const field of CASE_FIELDS) {
    const value = fieldOf<unknown>(f, field, 'model');
    // the first form of a key that has a value wins (`steps` as a list, else as a text)
    if (o[field.key] !== undefined) continue;
    o[field.key] =
      value === undefined || (field.kind === 'template' && value === implied)
        ? undefined
        : field.kind === 'labels'
          ? [...(value as string[])]
          : field.kind === 'steps'
            ? renderSteps(value as DesiredStep[])
            : value;
  }
  return o;
}

/** A test case as YAML: {@link caseDocument} without its absent keys. */
export function renderCaseYaml(
  c: { id?: string; title: string; fields: DesiredCaseFields },
  options: RenderOptions = {},
): string {
  return render(defined(caseDocument(c)), options, ['labels']);
}

/** A step group as the YAML document's data (id, title, description, labels, steps); absent keys undefined. */
export function stepGroupDocument(g: StepGroupDocumentInput): Record<string, unknown> {
  const o: Record<string, unknown> = { id: g.id, title: g.title };
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'model');
    o[f.key] =
      value === undefined
        ? undefined
        : f.kind === 'labels'
          ? [...(value as string[])]
          : f.kind === 'steps'
            ? renderSteps((value as DesiredGroupStep[]).map((s) => ({ kind: 'step' as const, action: s.action, expected: s.expected })))
            : value;
  }
  return o;
}

/** A step group as pull and write-back give it: its identity and the fields of the step group table. */
export type StepGroupDocumentInput = { id?: string; title: string } & StepGroupFieldValues<
  'model',
  { text: string; labels: string[]; steps: readonly { action: string; expected: string }[] },
  'text' | 'labels'
>;

/** A step group as YAML: {@link stepGroupDocument} without its absent keys. */
export function renderStepGroupYaml(g: StepGroupDocumentInput, options: RenderOptions = {}): string {
  return render(defined(stepGroupDocument(g)), options, ['labels']);
}

function defined(doc: Record<string, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (value !== undefined) o[key] = value;
  return o;
}

/** `_folder.yaml`: id, name, order. */
export function renderFolderYaml(f: { id?: string; name?: string; order?: number }, options: RenderOptions = {}): string {
  const o: Record<string, unknown> = {};
  if (f.id !== undefined) o.id = f.id;
  if (f.name !== undefined) o.name = f.name;
  if (f.order !== undefined) o.order = f.order;
  return render(o, options);
}

export interface SetYamlFieldsOptions extends WriteFileOptions {
  /** added as the first line when the file has no `yaml-language-server` comment yet */
  schemaComment?: string;
  /**
   * the canonical key order: a new key goes after the nearest existing key that comes before it
   * in this list (or before the first that comes after it; keys not listed go last), so a
   * pulled `labels:` lands where the renderer would put it instead of on top
   * @default undefined (new keys go first, which is right for `id`)
   */
  order?: readonly string[];
}

/**
 * Sets top-level keys of a YAML file in place, keeping its comments, key order and formatting:
 * an existing key keeps its place (and a trailing comment on its value), a new key goes first
 * in the mapping (so `id` lands at the top) or at its place in `options.order`, `undefined`
 * removes a key. Creates the file when it is missing. Written atomically.
 */
export async function setYamlFields(
  file: string,
  fields: Record<string, unknown>,
  options: SetYamlFieldsOptions = {},
): Promise<void> {
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
  const doc = text === undefined || text.trim() === '' ? new Document({}) : parseDocument(text, { logLevel: 'error' });
  if (doc.errors.length > 0) {
    throw new TmsyncError('invalid_yaml', `cannot update ${file}: ${doc.errors[0].message.split('\n')[0]}`, {
      hint: 'fix the YAML syntax (run `tmsync validate`) and retry',
    });
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) doc.contents = doc.createNode({});
  if (!isMap(doc.contents)) {
    throw new TmsyncError('invalid_yaml', `cannot update ${file}: it does not hold a mapping of keys`, {
      hint: 'run `tmsync validate` to see what is wrong with the file',
    });
  }
  const map = doc.contents as YAMLMap;
  // where each key began in the text as read: keys left alone keep their text exactly
  const before = keyStarts(map);
  const added = [];
  for (const [key, value] of Object.entries(fields)) {
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (value === undefined) {
      if (pair) map.items.splice(map.items.indexOf(pair), 1);
      continue;
    }
    const node = doc.createNode(value);
    quoteSpecialStrings(node);
    if (pair) {
      const old = pair.value;
      if (isScalar(old) && isScalar(node)) {
        node.comment = old.comment;
        // keep the author's quoting when the new value still fits it
        const v: unknown = node.value;
        if (typeof v === 'string' && (old.type === Scalar.QUOTE_DOUBLE || old.type === Scalar.QUOTE_SINGLE) && !v.includes('\n')) {
          node.type = old.type;
        }
      } else if (isCollection(old) && isCollection(node)) {
        node.flow = old.flow && flowable(node);
        node.comment = old.comment;
      }
      pair.value = node;
    } else {
      added.push(doc.createPair(key, node));
    }
  }
  if (added.length > 0 && options.order) {
    insertInOrder(map, added, options.order);
  } else if (added.length > 0) {
    const first = map.items[0];
    // a comment block at the top of the file belongs to the file, not to its first key
    if (first && isScalar(first.key) && first.key.commentBefore && isScalar(added[0].key)) {
      added[0].key.commentBefore = first.key.commentBefore;
      first.key.commentBefore = undefined;
    }
    map.items.unshift(...added);
  }
  if (options.schemaComment && !(text ?? '').includes('yaml-language-server:')) {
    doc.commentBefore = doc.commentBefore ? ` ${options.schemaComment}\n${doc.commentBefore}` : ` ${options.schemaComment}`;
  }
  let out = doc.toString(TO_STRING);
  const headerChanged = options.schemaComment !== undefined && !(text ?? '').includes('yaml-language-server:');
  if (text !== undefined && !headerChanged) out = keepUntouchedKeys(text, before, out, new Set(Object.keys(fields)));
  // keep Windows line endings and a byte-order mark where the author has them
  if (text?.includes('\r\n')) out = out.replace(/\r?\n/g, '\r\n');
  if (text?.startsWith('\uFEFF') && !out.startsWith('\uFEFF')) out = `\uFEFF${out}`;
  await writeFileAtomic(file, encodeText(out, encoding), {
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(options.ops ? { ops: options.ops } : {}),
    ...(options.session ? { session: options.session } : {}),
  });
}

type Pair = YAMLMap['items'][number];

/** Each top-level key of a mapping and the offset its key starts at in the text it was read from. */
function keyStarts(map: YAMLMap): { key: string | undefined; start: number | undefined }[] {
  return map.items.map((p) => (isScalar(p.key) ? { key: String(p.key.value), start: p.key.range?.[0] } : { key: undefined, start: undefined }));
}

/**
 * The updated text with every key that was not set (nor removed, nor added) exactly as the
 * original text had it (its spacing before a comment, its quoting, the blank lines after it):
 * the `yaml` library rewrites a whole document in its own layout, and a file of which one key
 * changes should show a diff of that key only. Falls back to the updated text whenever the two
 * cannot be matched key for key (keys added or removed, a flow mapping, two keys on a line).
 */
function keepUntouchedKeys(original: string, before: { key: string | undefined; start: number | undefined }[], updated: string, changed: ReadonlySet<string>): string {
  const next = parseDocument(updated, { logLevel: 'error' });
  if (next.errors.length > 0 || !isMap(next.contents)) return updated;
  const after = keyStarts(next.contents as YAMLMap);
  if (after.length === 0 || after.length !== before.length) return updated;
  const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
  const starts = (text: string, keys: typeof before): number[] | undefined => {
    const out: number[] = [];
    for (const k of keys) {
      if (k.key === undefined || k.start === undefined) return undefined;
      const line = lineStart(text, k.start);
      // the key must open its line (a block mapping), each on a line of its own
      if (text.slice(line, k.start).trim() !== '' || (out.length > 0 && line <= out[out.length - 1]!)) return undefined;
      out.push(line);
    }
    return out;
  };
  if (after.some((a, i) => a.key !== before[i]!.key)) return updated;
  const was = starts(original, before);
  const now = starts(updated, after);
  if (!was || !now) return updated;
  let out = original.slice(0, was[0]);
  for (let i = 0; i < was.length; i++) {
    out += changed.has(after[i]!.key!) ? updated.slice(now[i], now[i + 1] ?? updated.length) : original.slice(was[i], was[i + 1] ?? original.length);
  }
  if (!out.endsWith('\n')) out += '\n';
  // a safety net: what is written must read as what the library wrote
  return isDeepStrictEqual(parse(out), parse(updated)) ? out : updated;
}

/** Inserts new pairs at their place in `order` relative to the keys already in the map. */
function insertInOrder(map: YAMLMap, added: Pair[], order: readonly string[]): void {
  const rank = (p: Pair) => {
    const i = isScalar(p.key) ? order.indexOf(String(p.key.value)) : -1;
    return i === -1 ? order.length : i;
  };
  for (const pair of [...added].sort((a, b) => rank(a) - rank(b))) {
    const r = rank(pair);
    let at = -1;
    for (let i = 0; i < map.items.length; i++) if (rank(map.items[i]) <= r) at = i;
    if (at === -1) {
      const first = map.items[0];
      // a comment block at the top of the file belongs to the file, not to its first key
      if (first && isScalar(first.key) && first.key.commentBefore && isScalar(pair.key)) {
        pair.key.commentBefore = first.key.commentBefore;
        first.key.commentBefore = undefined;
      }
      map.items.unshift(pair);
    } else map.items.splice(at + 1, 0, pair);
  }
}

export interface WriteFileOptions {
  /**
   * The repository root. When given, the write must end inside it (a path through a symbolic
   * link leading out is refused, `link_outside_repository`), and the temporary file goes to
   * `<root>/.tmsync/tmp/`, which a `.gitignore` there hides from `git add --all`.
   */
  root?: string;
  /** file system calls (tests inject failures) */
  ops?: Partial<FileOps>;
  /**
   * Shared by the writes of one batch (a pull's thousands of files): the repository root, its
   * real path, the temporary directory and each file's directory are made and resolved once
   * instead of once a file. Every file keeps its own checks (links, read-only, not a regular
   * file), its fsync and its rename. @default none (each write prepares everything itself)
   */
  session?: WriteSession;
}

/** What the writes of one batch prepare once; see {@link createWriteSession}. */
export interface WriteSession {
  readonly once: Map<string, Promise<unknown>>;
}

/** A {@link WriteSession} for a batch of writes under one root that nothing else moves meanwhile. */
export function createWriteSession(): WriteSession {
  return { once: new Map() };
}

/** `make()` once per key in the session, every time without one. */
function once<T>(session: WriteSession | undefined, key: string, make: () => Promise<T>): Promise<T> {
  if (!session) return make();
  let p = session.once.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    p.catch(() => undefined); // observed by every caller that awaits it
    session.once.set(key, p);
  }
  return p;
}

/** Where temporary files go, under the repository root; git-ignored by a `.gitignore` of its own. */
export const TEMP_DIR = '.tmsync/tmp';

const shownPath = (file: string, root?: string) => (root ? relative(root, file).split(sep).join('/') || file : file);

/**
 * The path a write of `file` ends at: symbolic links resolved, so a link inside the repository
 * stays a link and its target is written. Refuses a path that leads outside `root`, and a link
 * whose target is missing.
 */
export async function resolveWriteTarget(file: string, root: string | undefined, ops: FileOps, session?: WriteSession): Promise<string> {
  return (await resolveTarget(file, root, ops, session)).target;
}

/** {@link resolveWriteTarget}, and whether the file is missing (so no one needs to stat it again). */
async function resolveTarget(file: string, root: string | undefined, ops: FileOps, session?: WriteSession): Promise<{ target: string; missing: boolean }> {
  const abs = resolve(file);
  // a path that leaves the repository by itself (`..`, an absolute path): no link is involved, so
  // the refusal says what the path is before any link is looked at
  if (root !== undefined && !isInside(resolve(root), abs)) {
    const shown = shownPath(abs, resolve(root));
    throw new TmsyncError('path_outside_repository', `${shown} is outside the repository (the path itself leads out of ${resolve(root)}); tmsync never writes outside it`, {
      hint: 'give a path inside the repository (a path read from the apply journal or a saved plan that leads out of it was edited there, or comes from another checkout)',
      details: { file: shown },
    });
  }
  let existing = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      await ops.lstat(existing);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(err, 'read', existing);
      const up = dirname(existing);
      if (up === existing) break;
      rest.unshift(basename(existing));
      existing = up;
    }
  }
  let real: string;
  try {
    // a directory's real path is resolved once a session (the files of a batch share a few)
    real = await (rest.length > 0 ? once(session, `realpath:${existing}`, () => ops.realpath(existing)) : ops.realpath(existing));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TmsyncError('link_dangling', `${shownPath(existing, root)} is a symbolic link to a missing file; tmsync does not write through it`, {
        hint: 'remove the link or restore its target',
        details: { file: shownPath(existing, root) },
      });
    }
    throw ioError(err, 'read', existing);
  }
  const target = join(real, ...rest);
  if (root !== undefined) {
    const rootReal = await once(session, `realpath:${resolve(root)}`, () => ops.realpath(resolve(root)));
    if (!isInside(rootReal, target)) {
      throw new TmsyncError(
        'link_outside_repository',
        `${shownPath(abs, resolve(root))} leads outside the repository through a symbolic link (to ${target}); tmsync never writes through it`,
        { hint: 'replace the link by a copy of the file, or move its target into the repository', details: { file: shownPath(abs, resolve(root)), target } },
      );
    }
  }
  return { target, missing: rest.length > 0 };
}

/** `<root>/.tmsync/tmp/`, created with a `.gitignore` of `*` (so git never sees a temporary file). */
async function tempDir(root: string, ops: FileOps): Promise<string> {
  const dir = join(root, TEMP_DIR);
  await ops.mkdir(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  try {
    const fh = await ops.open(ignore, 'wx');
    try {
      await fh.writeFile('# temporary files of tmsync: never committed\n*\n');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return dir;
}

/** Writes and fsyncs a new file (exclusive create); the caller removes it when anything fails. */
async function writeNewFile(ops: FileOps, path: string, content: string | Uint8Array, sync = true): Promise<void> {
  const fh = await ops.open(path, 'wx');
  try {
    await fh.writeFile(content);
    // the data is on the disk before the rename makes it the file: a crash leaves old or new
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Gives the new file the mode, owner and group of the one it replaces (owner: only where allowed). */
async function keepModeAndOwner(ops: FileOps, tmp: string, before: Stats | undefined): Promise<void> {
  if (!before) return;
  await ops.chmod(tmp, before.mode & 0o7777);
  const now = await ops.stat(tmp);
  if (now.uid !== before.uid || now.gid !== before.gid) {
    // only root may give a file away; another user keeps what they can (the mode)
    await ops.chown(tmp, before.uid, before.gid).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPERM') throw err;
    });
  }
}

/**
 * Writes a file so readers see the old or the new content, never a part:
 * - the path is resolved first: a link inside the repository is kept and its target written, a
 *   path leading outside `options.root` is refused;
 * - a read-only file is refused (`file_read_only`), as its owner asked it not to change, and so
 *   is a path that is not a regular file (`not_a_regular_file`: a directory, a pipe, a device),
 *   which the rename would replace;
 * - the content goes to a temporary file (under `<root>/.tmsync/tmp/`, or hidden next to the
 *   file without a root or on another file system), is fsynced, given the mode and owner of the
 *   file it replaces, and renamed over it.
 * Operating-system failures come back as `io_error` naming the path.
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
  const ops = fileOps(options.ops);
  const root = options.root === undefined ? undefined : resolve(options.root);
  const { shown, target, before } = await prepareWrite(file, root, ops, options.session);
  const session = options.session;
  const dir = dirname(target);
  const unique = `${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let tmp: string | undefined;
  try {
    await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true }));
    tmp = root !== undefined ? join(await sessionTempDir(root, ops, session), `${basename(target)}.${unique}`) : join(dir, `.${basename(target)}.${unique}`);
    await writeNewFile(ops, tmp, content);
    await keepModeAndOwner(ops, tmp, before);
    try {
      await ops.rename(tmp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // the temporary directory is on another file system than the file: write next to it
      await ops.unlink(tmp).catch(() => undefined);
      tmp = join(dir, `.${basename(target)}.${unique}`);
      await writeNewFile(ops, tmp, content);
      await keepModeAndOwner(ops, tmp, before);
      await ops.rename(tmp, target);
    }
    // no fsync of the directory: it costs more than the file's own on ext4 (docs/performance.md,
    // "Writing"), and a crash right after the rename leaves the old content intact, for the next run
    tmp = undefined;
  } catch (err) {
    if (tmp !== undefined) await ops.unlink(tmp).catch(() => undefined);
    throw ioError(err, 'write', shown);
  }
}

/** The checks every write makes before it writes anything (see {@link writeFileAtomic}). */
async function prepareWrite(
  file: string,
  root: string | undefined,
  ops: FileOps,
  session: WriteSession | undefined,
): Promise<{ shown: string; target: string; before: Stats | undefined }> {
  const shown = shownPath(resolve(file), root);
  if (root !== undefined) {
    await once(session, `mkdir:${root}`, () => ops.mkdir(root, { recursive: true })).catch((err: unknown) => Promise.reject(ioError(err, 'create the directory', root)));
  }
  const { target, missing } = await resolveTarget(file, root, ops, session);
  let before: Stats | undefined;
  try {
    // a path found missing is missing through its real directory too
    if (!missing) before = await ops.stat(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(err, 'read', shown);
  }
  if (before && !before.isFile()) {
    throw notRegularFileError(shown, before, 'move it away, or point the command at another path');
  }
  if (before && (before.mode & 0o222) === 0) {
    throw new TmsyncError('file_read_only', `${shown} is read-only; tmsync does not change it`, {
      hint: 'make it writable (chmod u+w) and run the command again, or make the change by hand',
      details: { file: shown },
    });
  }
  return { shown, target, before };
}

function sessionTempDir(root: string, ops: FileOps, session: WriteSession | undefined): Promise<string> {
  return once(session, `temp:${root}`, async () => tempDir(await ops.realpath(root), ops));
}

/**
 * `<root>/.tmsync/tmp/` through the root's real path, made (with its `.gitignore`) once a session:
 * where a batch's temporary files and directories go.
 */
export function repositoryTempDir(root: string, options: { ops?: Partial<FileOps>; session?: WriteSession } = {}): Promise<string> {
  return sessionTempDir(resolve(root), fileOps(options.ops), options.session);
}

export interface WriteFilesOptions extends WriteFileOptions {
  /** files in flight at once @default 32 */
  parallel?: number;
  /**
   * Flushes every file of the file system holding `dir` to the disk at once; answers false when it
   * cannot (each file is then fsynced on its own). @default `sync -f DIR` (syncfs(2)) on Linux
   */
  syncFileSystem?: (dir: string) => Promise<boolean>;
  /**
   * A temporary file already holding exactly `content` (written earlier by {@link stageTempFile}
   * with this root), taken instead of writing the content again; undefined: none.
   */
  staged?: (content: string | Uint8Array) => string | undefined;
}

/**
 * Writes `content` to a new temporary file under `<root>/.tmsync/tmp/`, not flushed, and returns
 * its path: a file of a later {@link writeFilesAtomic} (its `staged`), written ahead of it, while
 * the content is still being gathered. The caller removes the file when it is not used.
 */
export async function stageTempFile(root: string, content: string | Uint8Array, options: { ops?: Partial<FileOps>; session?: WriteSession; name?: string } = {}): Promise<string> {
  const ops = fileOps(options.ops);
  const tmp = join(await sessionTempDir(resolve(root), ops, options.session), `${options.name ?? 'staged'}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeStagedFile(tmp, content, options.ops);
  return tmp;
}

/**
 * Writes a new file (`wx`: never over one that exists), not flushed: a staged file, flushed later
 * with the others. A failed write removes what it made (not a file that was there before: EEXIST).
 */
export async function writeStagedFile(path: string, content: string | Uint8Array, custom?: Partial<FileOps>): Promise<void> {
  const ops = fileOps(custom);
  try {
    if (custom?.open) await writeNewFile(ops, path, content, false);
    // without a file handle object: for thousands of small files, the handles' own cost is the larger part
    else await new Promise<void>((done, fail) => writeFileCallback(path, content, { flag: 'wx' }, (err) => (err ? fail(err) : done())));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await ops.unlink(path).catch(() => undefined);
    throw err;
  }
}

/** `sync -f DIR`: one syncfs(2) for the whole file system; false where it is missing or fails. */
export function syncFileSystem(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  return new Promise((done) => {
    execFile('sync', ['-f', dir], { timeout: 120_000 }, (err) => done(err === null));
  });
}

/**
 * Writes many files with the guarantees of {@link writeFileAtomic} (each reads old or new, never a
 * part; the same checks and errors), with the cost of durability paid once instead of once a file:
 * every content goes to its temporary file first, all of them are flushed to the disk together
 * (one syncfs, or else one fsync each), and only then renamed into place. A failure before the
 * renames leaves no file written and no temporary file; a failure during them leaves whole files
 * (run again). `content` may be a function: each file is rendered as its turn comes. Without a
 * root each file is written by {@link writeFileAtomic}.
 */
export async function writeFilesAtomic(
  files: readonly { file: string; content: string | Uint8Array | (() => string | Uint8Array) }[],
  options: WriteFilesOptions = {},
): Promise<void> {
  const parallel = options.parallel ?? 32;
  const session = options.session ?? createWriteSession();
  const single: WriteFileOptions = { ...(options.root !== undefined ? { root: options.root } : {}), ...(options.ops ? { ops: options.ops } : {}), session };
  const contentOf = (c: string | Uint8Array | (() => string | Uint8Array)) => (typeof c === 'function' ? c() : c);
  if (options.root === undefined) {
    await limit(files, parallel, (f) => writeFileAtomic(f.file, contentOf(f.content), single));
    return;
  }
  const ops = fileOps(options.ops);
  const root = resolve(options.root);
  const staged: { file: string; shown: string | undefined; target: string; content: string | Uint8Array; tmp: string | undefined }[] = [];
  // how errors name a file (worked out only for one)
  const shownOf = (e: { file: string; shown: string | undefined }) => e.shown ?? shownPath(resolve(e.file), root);
  /**
   * Each directory of the batch resolved once (its real path, inside the root) with what it
   * already holds, named as macOS and Windows compare names: a file whose name is not there is
   * known to be new without a look of its own; any other file, and every file of a directory
   * that cannot be listed so, gets the checks of a single write (and their errors).
   */
  type Listing = { real: string; names: Set<string> } | undefined;
  const listed = new Map<string, Listing>();
  const listing = async (dir: string): Promise<Listing> => {
    if (listed.has(dir)) return listed.get(dir);
    const got = await listOnce(dir);
    listed.set(dir, got);
    return got;
  };
  const listOnce = (dir: string) =>
    once(session, `list:${dir}`, async () => {
      await once(session, `mkdir:${root}`, () => ops.mkdir(root, { recursive: true }));
      const { target, missing } = await resolveTarget(dir, root, ops, session);
      if (missing) return { real: target, names: new Set<string>() };
      if (!(await ops.stat(target)).isDirectory()) return undefined;
      return { real: target, names: new Set((await ops.readdir(target)).map(foldName)) };
    }).catch(() => undefined);
  try {
    let rest = files;
    // files whose content found no staged temporary file already
    const asked = new Set<object>();
    if (options.staged) {
      // the directories first (a few), then every new file with a staged temporary file in one
      // pass, without a turn of its own; the others as below
      const dirOf = files.map((f) => dirname(resolve(f.file)));
      await limit([...new Set(dirOf)], parallel, async (d) => void (await listing(d)));
      const later: { file: string; content: string | Uint8Array | (() => string | Uint8Array) }[] = [];
      const made = new Map<string, (typeof staged)[number]>();
      for (const [i, f] of files.entries()) {
        const known = listed.get(dirOf[i]!);
        const base = basename(f.file);
        if (!known || known.names.has(foldName(base))) {
          later.push(f);
          continue;
        }
        const content = contentOf(f.content);
        const ready = options.staged(content);
        if (ready === undefined) {
          const again = { file: f.file, content };
          asked.add(again);
          later.push(again);
          continue;
        }
        const entry = { file: f.file, shown: undefined, target: join(known.real, base), content, tmp: ready as string | undefined };
        staged.push(entry);
        if (!made.has(known.real)) made.set(known.real, entry);
      }
      await limit([...made], parallel, async ([dir, first]) => {
        await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true })).catch((err: unknown) => Promise.reject(ioError(err, 'write', shownOf(first))));
      });
      rest = later;
    }
    await limit(rest, parallel, async (f) => {
      const abs = resolve(f.file);
      const known = await listing(dirname(abs));
      const { shown, target, before } =
        known && !known.names.has(foldName(basename(abs)))
          ? { shown: undefined, target: join(known.real, basename(abs)), before: undefined }
          : await prepareWrite(f.file, root, ops, session);
      const content = contentOf(f.content);
      const dir = dirname(target);
      const entry = { file: f.file, shown, target, content, tmp: undefined as string | undefined };
      staged.push(entry);
      try {
        await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true }));
        const ready = asked.has(f) ? undefined : options.staged?.(content);
        if (ready !== undefined) entry.tmp = ready;
        else {
          entry.tmp = join(await sessionTempDir(root, ops, session), `${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
          await writeNewFile(ops, entry.tmp, content, false);
        }
        if (before) await keepModeAndOwner(ops, entry.tmp, before);
      } catch (err) {
        throw ioError(err, 'write', shownOf(entry));
      }
    });
    // the data of every file is on the disk before any rename makes it a file: a crash leaves old or new
    const flushed = staged.length > 0 && (await (options.syncFileSystem ?? syncFileSystem)(await sessionTempDir(root, ops, session)));
    if (!flushed) {
      await limit(staged, parallel, async (e) => {
        try {
          const fh = await ops.open(e.tmp!, 'r+');
          try {
            await fh.sync();
          } finally {
            await fh.close();
          }
        } catch (err) {
          throw ioError(err, 'write', shownOf(e));
        }
      });
    }
    await limit(staged, parallel, async (e) => {
      const tmp = e.tmp!;
      try {
        await ops.rename(tmp, e.target);
        e.tmp = undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw ioError(err, 'write', shownOf(e));
        // the temporary directory is on another file system than the file: the single write handles it
        await ops.unlink(tmp).catch(() => undefined);
        e.tmp = undefined;
        await writeFileAtomic(e.file, e.content, single);
      }
    });
  } catch (err) {
    await Promise.all(staged.map((e) => (e.tmp === undefined ? undefined : ops.unlink(e.tmp).catch(() => undefined))));
    throw err;
  }
}

/** A name as file systems that ignore letter case and Unicode normalisation compare it. */
const foldName = (name: string) => name.normalize('NFC').toUpperCase().toLowerCase();

/** Runs `fn` over `items`, `n` at a time; the first failure is thrown once the running calls settle. */
async function limit<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
      while (next < items.length && !failure) {
        const item = items[next++]!;
        try {
          await fn(item);
        } catch (err) {
          failure ??= { err };
        }
      }
    }),
  );
  if (failure) throw failure.err;
}

/**
 * Removes temporary files a killed run left: those under `<root>/.tmsync/tmp/` whose process is
 * gone, and `strays` (relative paths of `.NAME.yaml.PID.tmp` files older versions left next to
 * files, as the loader lists them). Returns the relative paths removed. Never throws.
 */
export async function removeStrayTempFiles(root: string, strays: readonly string[] = [], ops: Partial<FileOps> = {}): Promise<string[]> {
  const o = fileOps(ops);
  const removed: string[] = [];
  const names = await o.readdir(join(root, TEMP_DIR)).catch(() => [] as string[]);
  for (const name of names) {
    const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (!m || !processGone(Number(m[1]))) continue;
    if (await o.unlink(join(root, TEMP_DIR, name)).then(() => true, () => false)) removed.push(`${TEMP_DIR}/${name}`);
  }
  for (const rel of strays) {
    if (await o.unlink(join(root, rel)).then(() => true, () => false)) removed.push(rel);
  }
  return removed;
}
