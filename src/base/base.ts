import { hash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';
import { TmsyncError } from '../errors.js';

/**
 * The sync base: for each item the last `apply` or `pull` synced, the service's `updated_at` and a
 * hash of each managed field as it was synced. With it, a field that differs between the repository
 * and the service can be told apart: changed in the repository, changed on the service, or changed
 * on both sides (a conflict). See docs/sync.md.
 *
 * `tmsync.base` at the repository root, meant to be committed beside the YAML files, like a lockfile.
 * A text file made to merge well in git: a header line, then one line per item in a stable order
 * (folders, step groups, cases; by id), fields sorted by name:
 *
 *     tmsync-base 1 project 0b1c…
 *     case 3f2a… 2026-11-23T10:00:00Z description=9c1d2e3f4a5b title=77aa01bc23de
 *
 * Reading is forgiving where git is likely to have been: merge-conflict markers are skipped, and an
 * item that appears twice with different lines (both branches synced it) has no base, so the next
 * plan treats it as today's two-way compare and the next sync records it again. A base written for
 * another project is not used. A base of a newer format is refused (never rewritten by an older tmsync).
 *
 * This module is the model and its text, free of I/O (the plan compares against it); `base-file.ts`
 * reads and writes the file.
 */
export const SYNC_BASE_FILE = 'tmsync.base';
const SYNC_BASE_FORMAT_VERSION = 1;

export type BaseKind = 'folder' | 'step_group' | 'case';
const KIND_ORDER: readonly BaseKind[] = ['folder', 'step_group', 'case'];

export interface BaseEntry {
  kind: BaseKind;
  id: string;
  /** the service's `updated_at` as synced; undefined when the service gave none */
  updatedAt: string | undefined;
  /** field name → hash of its value as synced */
  fields: ReadonlyMap<string, string>;
}

/** The hash recorded for a field value: 12 hex digits of the SHA-256 of its canonical JSON. */
export function fieldHash(value: unknown): string {
  // the one-shot hash (Node ≥ 20.12) costs a third less than a Hash object per field
  return hash('sha256', canonicalJson(value === undefined ? null : value), 'hex').slice(0, 12);
}

/**
 * Field values hashed ahead of time (`hashFields`), e.g. while the service is still being read, so
 * that recording them later costs no hashing: `record` takes them as it takes the values.
 */
export class HashedFields {
  /** field name → `fieldHash` of its value, by name */
  readonly hashes: ReadonlyMap<string, string>;
  /**
   * The fields as an entry's line ends with them (` name=hash` each, by name), made here too, so
   * that recording them and writing the base costs a join (undefined when a name cannot be
   * recorded: `record` says which).
   */
  readonly tail: string | undefined;
  constructor(fields: Readonly<Record<string, unknown>>) {
    const hashes = new Map<string, string>();
    const parts: string[] = [];
    let valid = true;
    for (const name of Object.keys(fields).sort()) {
      const h = fieldHash(fields[name]);
      hashes.set(name, h);
      valid &&= FIELD_NAME.test(name);
      parts.push(' ', name, '=', h);
    }
    this.hashes = hashes;
    // one flat string (a join, not a chain of concatenations): the base's text is joined from many
    this.tail = valid ? parts.join('') : undefined;
  }
  has(name: string): boolean {
    return this.hashes.has(name);
  }
}

/** Whether recorded fields (values or hashed ones) hold a field of this name. */
export function hasField(fields: Readonly<Record<string, unknown>> | HashedFields, name: string): boolean {
  return fields instanceof HashedFields ? fields.has(name) : name in fields;
}

const FIELD_NAME = /^[A-Za-z0-9_.[\]-]+$/;
const HASH = /^[0-9a-f]{12}$/;
const CONFLICT_MARKER = /^(<{7}|={7}|>{7}|\|{7})( |$)/;
const keyOf = (kind: BaseKind, id: string) => `${kind} ${id}`;

/**
 * An entry as held: the entry, or (as read from a file) its line in normal form, read again when
 * asked for. Held as objects (a map of field hashes each), a large base took several times the
 * memory of its lines (issue 15; docs/performance.md, "The sync base in a large plan").
 */
type Held = BaseEntry | string;

export class SyncBase {
  private readonly held: Record<BaseKind, Map<string, Held>> = { folder: new Map(), step_group: new Map(), case: new Map() };

  constructor(readonly project: string) {}

  /** A base holding these entries (as read from a file). */
  static of(project: string, entries: Iterable<BaseEntry>): SyncBase {
    const base = new SyncBase(project);
    for (const e of entries) base.held[e.kind].set(e.id, e);
    return base;
  }

  /** A base of entries as lines in normal form (`entryLine`) by kind and id, as `parseSyncBase` reads them. */
  static ofLines(project: string, lines: Record<BaseKind, Map<string, Held>>): SyncBase {
    const base = new SyncBase(project);
    for (const kind of KIND_ORDER) base.held[kind] = lines[kind];
    return base;
  }

  /** A copy: recording in it leaves this base as it is. */
  copy(): SyncBase {
    const base = new SyncBase(this.project);
    for (const kind of KIND_ORDER) for (const [id, h] of this.held[kind]) base.held[kind].set(id, h);
    return base;
  }

  get size(): number {
    return this.held.folder.size + this.held.step_group.size + this.held.case.size;
  }

  /** Whether the base holds an item (without reading its entry). */
  has(kind: BaseKind, id: string): boolean {
    return this.held[kind].has(id);
  }

  /** The entry of an item (for an entry read from a file, made when asked: treat it as read-only). */
  get(kind: BaseKind, id: string): BaseEntry | undefined {
    const h = this.held[kind].get(id);
    return h === undefined ? undefined : unpack(h);
  }

  /** The entries of one kind, in no particular order, read one at a time (a large base is not held as objects). */
  *entries(kind: BaseKind): IterableIterator<BaseEntry> {
    for (const h of this.held[kind].values()) yield unpack(h);
  }

  /**
   * Records an item as synced now: its `updated_at` and its fields' values (hashed here). Fields
   * named in `keep` keep the hash the base held for them (a change on the service the sync did not
   * take in: it stays a change against the base); a kept field the base did not hold is left out.
   * `fields` may be hashed already (`HashedFields`): the same entry as from the values.
   */
  record(
    kind: BaseKind,
    id: string,
    updatedAt: string | number | null | undefined,
    fields: Readonly<Record<string, unknown>> | HashedFields,
    keep: Iterable<string> = [],
  ): void {
    if (!id || /\s/.test(id)) throw new TmsyncError('invalid_sync_base_entry', `cannot record ${kind} id ${JSON.stringify(id)} in the sync base`);
    const kept = new Set(keep);
    const before = kept.size > 0 ? this.get(kind, id) : undefined;
    const hashed: [string, string][] = [];
    const pre = fields instanceof HashedFields ? fields.hashes : undefined;
    const at = updatedAt === null || updatedAt === undefined || updatedAt === '' ? undefined : String(updatedAt);
    if (pre && kept.size === 0) {
      // already hashed, by name and joined: the entry is held as its line (read again when asked for)
      const tail = (fields as HashedFields).tail;
      if (tail !== undefined) {
        this.held[kind].set(id, heldLine(kind, id, at, tail));
        return;
      }
      for (const name of pre.keys()) if (!FIELD_NAME.test(name)) throw new TmsyncError('invalid_sync_base_entry', `cannot record field ${JSON.stringify(name)} in the sync base`);
      this.held[kind].set(id, { kind, id, updatedAt: at, fields: fieldHashes([...pre]) });
      return;
    }
    for (const name of [...new Set([...(pre ? pre.keys() : Object.keys(fields)), ...kept])].sort()) {
      if (!FIELD_NAME.test(name)) throw new TmsyncError('invalid_sync_base_entry', `cannot record field ${JSON.stringify(name)} in the sync base`);
      if (kept.has(name)) {
        const old = before?.fields.get(name);
        if (old !== undefined) hashed.push([name, old]);
        continue;
      }
      hashed.push([name, pre ? pre.get(name)! : fieldHash((fields as Readonly<Record<string, unknown>>)[name])]);
    }
    this.held[kind].set(id, { kind, id, updatedAt: at, fields: fieldHashes(hashed) });
  }

  /**
   * Whether recording the item with these fields (hashed ahead of time, none kept) would leave its
   * entry as the base holds it: the same `updated_at` and the same hash of every field, compared as
   * lines without reading the entry.
   */
  holds(kind: BaseKind, id: string, updatedAt: string | number | null | undefined, fields: HashedFields): boolean {
    const h = this.held[kind].get(id);
    if (h === undefined || fields.tail === undefined || !id || /\s/.test(id)) return false;
    const at = updatedAt === null || updatedAt === undefined || updatedAt === '' ? undefined : String(updatedAt);
    const line = typeof h === 'string' ? h : entryLine(h);
    // compared in its two parts, without joining them
    const head = heldLine(kind, id, at, '');
    return line.length === head.length + fields.tail.length && line.endsWith(fields.tail) && line.startsWith(head);
  }

  /** Forgets an item (deleted on both sides, or no longer managed). */
  forget(kind: BaseKind, id: string): void {
    this.held[kind].delete(id);
  }

  /** The file's text: the same entries always give the same bytes. */
  serialize(): string {
    const lines = [
      '# tmsync sync base: what the last apply or pull synced, per item. Commit it beside the YAML files;',
      '# apply and pull rewrite it. See docs/sync.md.',
      `tmsync-base ${SYNC_BASE_FORMAT_VERSION} project ${encodeToken(this.project)}`,
    ];
    for (const kind of KIND_ORDER) {
      const ids = [...this.held[kind].keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const id of ids) {
        const h = this.held[kind].get(id)!;
        lines.push(typeof h === 'string' ? h : entryLine(h));
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

/**
 * The field hashes of one entry, in the order given (sorted by name). A `Map` per entry was most
 * of an entry's memory (built at the end of an apply, for every new case); this keeps
 * the names, shared by every entry with the same fields, and the hashes packed in one string. A
 * hash that is not 12 characters (none is) gets a plain `Map`.
 */
export function fieldHashes(entries: readonly (readonly [string, string])[]): ReadonlyMap<string, string> {
  if (entries.some(([, hash]) => hash.length !== HASH_LENGTH)) return new Map(entries);
  return new PackedHashes(sharedNames(entries.map(([name]) => name)), entries.map(([, hash]) => hash).join(''));
}

const HASH_LENGTH = 12;
const namesBySet = new Map<string, readonly string[]>();

function sharedNames(names: string[]): readonly string[] {
  const key = names.join(' ');
  let shared = namesBySet.get(key);
  if (!shared) namesBySet.set(key, (shared = Object.freeze(names)));
  return shared;
}

class PackedHashes implements ReadonlyMap<string, string> {
  constructor(
    private readonly names: readonly string[],
    private readonly packed: string,
  ) {}
  get size(): number {
    return this.names.length;
  }
  get(name: string): string | undefined {
    const i = this.names.indexOf(name);
    return i < 0 ? undefined : this.packed.slice(i * HASH_LENGTH, (i + 1) * HASH_LENGTH);
  }
  has(name: string): boolean {
    return this.names.includes(name);
  }
  forEach(callback: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [name, hash] of this.entries()) callback.call(thisArg, hash, name, this);
  }
  *entries(): MapIterator<[string, string]> {
    for (let i = 0; i < this.names.length; i++) yield [this.names[i], this.packed.slice(i * HASH_LENGTH, (i + 1) * HASH_LENGTH)];
  }
  *keys(): MapIterator<string> {
    yield* this.names;
  }
  *values(): MapIterator<string> {
    for (const [, hash] of this.entries()) yield hash;
  }
  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
}

/** The last line unpacked and its entry: the plan and pull ask for one item's entry several times in a row. */
let lastLine: string | undefined;
let lastEntry: BaseEntry | undefined;

function unpack(h: Held): BaseEntry {
  if (typeof h !== 'string') return h;
  if (h === lastLine && lastEntry) return lastEntry;
  const entry = unpackLine(h);
  lastLine = h;
  lastEntry = entry;
  return entry;
}

/**
 * The entry of a held line. Held lines are in normal form (`normalLine` made them so: kind, id,
 * updated-at, then ` name=hash` with names ascending and 12-digit hashes), so they are cut at their
 * known places rather than checked again as `parseEntry` checks a line of a file.
 */
function unpackLine(line: string): BaseEntry {
  const afterKind = line.indexOf(' ');
  const afterId = line.indexOf(' ', afterKind + 1);
  let afterUpdated = line.indexOf(' ', afterId + 1);
  if (afterUpdated < 0) afterUpdated = line.length;
  const names: string[] = [];
  let packed = '';
  for (let at = afterUpdated; at < line.length; at += HASH_LENGTH + 1) {
    const eq = line.indexOf('=', at + 1);
    names.push(line.slice(at + 1, eq));
    packed += line.slice(eq + 1, eq + 1 + HASH_LENGTH);
    at = eq;
  }
  const updatedAt = line.slice(afterId + 1, afterUpdated);
  return {
    kind: line.slice(0, afterKind) as BaseKind,
    id: decodeToken(line.slice(afterKind + 1, afterId)),
    updatedAt: updatedAt === '-' ? undefined : decodeToken(updatedAt),
    fields: new PackedHashes(sharedNames(names), packed),
  };
}

/** A token of a line: percent-encoded, `-` for an empty text (so a text `-` itself is `%2D`). */
function encodeToken(s: string): string {
  if (s === '' || s === '-') return s === '' ? '-' : '%2D';
  // ids and timestamps: characters encodeURIComponent keeps, and `:` (what it makes of it, without
  // its cost: a re-pull encodes two tokens a case after the last answer)
  if (PLAIN_TOKEN.test(s)) return s.includes(':') ? s.replaceAll(':', '%3A') : s;
  return encodeURIComponent(s);
}

const PLAIN_TOKEN = /^[A-Za-z0-9_.!~*'():-]*$/;

function decodeToken(s: string): string {
  return s === '-' ? '' : decodeURIComponent(s);
}

/** The line of an entry whose fields are joined already (`HashedFields.tail`): what `entryLine` makes of it. */
function heldLine(kind: BaseKind, id: string, updatedAt: string | undefined, tail: string): string {
  return [kind, ' ', encodeToken(id), ' ', updatedAt === undefined ? '-' : encodeToken(updatedAt), tail].join('');
}

function entryLine(e: BaseEntry): string {
  const fields = [...e.fields].map(([name, hash]) => `${name}=${hash}`);
  return [e.kind, encodeToken(e.id), e.updatedAt === undefined ? '-' : encodeToken(e.updatedAt), ...fields].join(' ');
}

export interface ParsedSyncBase {
  base: SyncBase;
  /** things the user may want to know (merged entries dropped, lines skipped), one line each */
  notes: string[];
}

/**
 * Reads a sync base's text. `project` is the project this run targets: a base written for another
 * project is not used (an empty base, with a note). Throws for a base of a newer format, and for a
 * text that is not a base (no header, a version tmsync never wrote): an empty or comments-only file is
 * not taken as "no base yet". `shown`: the file's path as errors name it (@default `file`).
 */
export function parseSyncBase(text: string, file: string, project: string, shown: string = file): ParsedSyncBase {
  const notes: string[] = [];
  let header: { version: number; project: string } | undefined;
  // each entry as its line in normal form: the base holds the lines, not objects (see `Held`); a
  // line tmsync wrote is already in normal form, and is kept as it is (a slice of the text)
  const held: Record<BaseKind, Map<string, Held>> = { folder: new Map(), step_group: new Map(), case: new Map() };
  const dropped = new Set<string>();
  let skipped = 0;
  let markers = false;
  // line by line without splitting the text, which is large for a large base
  for (let start = 0, i = 0; start <= text.length; i++) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '' || line.startsWith('#')) continue;
    if (CONFLICT_MARKER.test(line)) {
      markers = true;
      continue;
    }
    if (!header) {
      const parts = line.split(/\s+/);
      if (parts[0] !== 'tmsync-base' || parts[2] !== 'project' || parts.length !== 4) {
        throw new TmsyncError('invalid_sync_base', `${shown}:${i + 1}: not a tmsync sync base (expected \`${HEADER_SHAPE}\`)`, { hint: unreadableHint(shown) });
      }
      // the version as tmsync writes it, digits only: `0`, `-1` or `1.0` is no version it ever wrote
      const version = /^[1-9][0-9]{0,8}$/.test(parts[1]) ? Number(parts[1]) : NaN;
      if (Number.isNaN(version)) {
        throw new TmsyncError(
          'invalid_sync_base',
          `${shown}:${i + 1}: format version ${JSON.stringify(parts[1])} is not a version of the sync base (expected ${SYNC_BASE_FORMAT_VERSION}: \`${HEADER_SHAPE}\`)`,
          { hint: unreadableHint(shown) },
        );
      }
      if (version > SYNC_BASE_FORMAT_VERSION) {
        throw new TmsyncError('sync_base_too_new', `${shown} was written by a newer tmsync (format ${version}; this one reads ${SYNC_BASE_FORMAT_VERSION})`, {
          hint: 'upgrade tmsync; this version leaves the file as it is',
        });
      }
      header = { version, project: decodeToken(parts[3]) };
      continue;
    }
    const entry = normalLine(line);
    if (!entry) {
      skipped++;
      continue;
    }
    const before = held[entry.kind].get(entry.id);
    if (before !== undefined && before !== entry.line) dropped.add(keyOf(entry.kind, entry.id));
    else held[entry.kind].set(entry.id, entry.line);
  }
  if (!header) {
    // a file there that says nothing is not "no base yet": taken as one, the next apply would send
    // the repository's value of every field the service changed since the last sync
    throw new TmsyncError(
      'invalid_sync_base',
      `${shown} is unreadable: it is ${text.trim() === '' ? 'empty' : markers ? 'only git merge-conflict markers and comments' : 'only comments'}, without the line \`${HEADER_SHAPE}\``,
      { hint: unreadableHint(shown) },
    );
  }
  if (header.project !== project) {
    notes.push(`${file} was written for another project (${header.project}); it is not used, and the next apply or pull replaces it`);
    return { base: new SyncBase(project), notes };
  }
  for (const key of dropped) {
    const sp = key.indexOf(' ');
    held[key.slice(0, sp) as BaseKind].delete(key.slice(sp + 1));
  }
  const base = SyncBase.ofLines(project, held);
  if (markers) notes.push(`${file} held git merge-conflict markers; they are ignored`);
  if (dropped.size > 0) {
    notes.push(`${dropped.size} item${dropped.size === 1 ? '' : 's'} appeared twice in ${file} with different records (a merge of two syncs): compared two ways until the next sync`);
  }
  if (skipped > 0) notes.push(`${skipped} unreadable line${skipped === 1 ? '' : 's'} in ${file} skipped: those items are compared two ways until the next sync`);
  return { base, notes };
}

const HEADER_SHAPE = `tmsync-base ${SYNC_BASE_FORMAT_VERSION} project <project id>`;

/** What to do about a base that cannot be read: without one, the repository's values win every difference. */
function unreadableHint(shown: string): string {
  return (
    `restore ${shown} from git (\`git checkout -- ${SYNC_BASE_FILE}\`); failing that, delete it and review \`tmsync plan\` before applying: ` +
    "without a base the repository's value wins every difference, so an edit made on the service since the last sync would be overwritten " +
    '(`tmsync pull` takes such edits into the files first). The next apply or pull writes a new base'
  );
}

/** A line in normal form as tmsync writes it (tokens that need no encoding); its names must also ascend (`namesAscend`). */
const NORMAL_LINE = /^(?:folder|step_group|case) [A-Za-z0-9_.!~*'()-]+ [A-Za-z0-9_.!~*'()-]+(?: [A-Za-z0-9_.[\]-]+=[0-9a-f]{12})*$/;

/**
 * An entry's line in normal form (`entryLine` of what `parseEntry` reads), with its kind and id;
 * undefined for a line `parseEntry` refuses. A line already in normal form (what tmsync writes) is
 * checked and kept without building the entry or copying its parts.
 */
function normalLine(line: string): { kind: BaseKind; id: string; line: string } | undefined {
  if (NORMAL_LINE.test(line)) {
    const afterKind = line.indexOf(' ');
    const afterId = line.indexOf(' ', afterKind + 1);
    const afterUpdated = line.indexOf(' ', afterId + 1);
    if (namesAscend(line, afterUpdated < 0 ? line.length : afterUpdated)) {
      const kind = line.slice(0, afterKind) as BaseKind;
      const id = line.slice(afterKind + 1, afterId);
      return { kind, id: id === '-' ? '' : id, line };
    }
  }
  const entry = parseEntry(line.split(/\s+/));
  return entry && { kind: entry.kind, id: entry.id, line: entryLine(entry) };
}

/** Whether the field names of a line (` name=hash` from `from` on) ascend strictly: sorted, each once. Compared in place. */
function namesAscend(line: string, from: number): boolean {
  let prevStart = -1;
  let prevEnd = -1;
  for (let at = from; at < line.length; ) {
    const start = at + 1;
    const end = line.indexOf('=', start);
    if (prevStart >= 0 && !lessThan(line, prevStart, prevEnd, start, end)) return false;
    prevStart = start;
    prevEnd = end;
    at = end + 13;
  }
  return true;
}

/** `line.slice(a0, a1) < line.slice(b0, b1)`, without the slices. */
function lessThan(line: string, a0: number, a1: number, b0: number, b1: number): boolean {
  const n = Math.min(a1 - a0, b1 - b0);
  for (let i = 0; i < n; i++) {
    const d = line.charCodeAt(a0 + i) - line.charCodeAt(b0 + i);
    if (d !== 0) return d < 0;
  }
  return a1 - a0 < b1 - b0;
}

function parseEntry(parts: string[]): BaseEntry | undefined {
  const [kind, id, updatedAt, ...fieldParts] = parts;
  if (kind !== 'folder' && kind !== 'step_group' && kind !== 'case') return undefined;
  if (!id || !updatedAt) return undefined;
  const fields = new Map<string, string>();
  for (const f of fieldParts) {
    const eq = f.indexOf('=');
    const name = f.slice(0, eq);
    const hash = f.slice(eq + 1);
    if (eq <= 0 || !FIELD_NAME.test(name) || !HASH.test(hash) || fields.has(name)) return undefined;
    fields.set(name, hash);
  }
  try {
    return { kind, id: decodeToken(id), updatedAt: updatedAt === '-' ? undefined : decodeToken(updatedAt), fields: fieldHashes([...fields].sort(([a], [b]) => (a < b ? -1 : 1))) };
  } catch {
    return undefined;
  }
}

/**
 * How one field stands between the base, the repository (local) and the service (remote). The
 * values must be in the form the plan compares them in (the same normalisation on both sides).
 * - `no_base`: the item or field has no base: compare two ways, as without a sync base;
 * - `unchanged`: both sides hold the base value;
 * - `local`: only the repository changed it (an update, as today);
 * - `remote`: only the service changed it (keep it; `pull` brings it into the files);
 * - `same`: both changed it to the same value;
 * - `conflict`: both changed it, to different values.
 */
export type FieldStanding = 'no_base' | 'unchanged' | 'local' | 'remote' | 'same' | 'conflict';

export function fieldStanding(baseHash: string | undefined, local: unknown, remote: unknown): FieldStanding {
  if (baseHash === undefined) return 'no_base';
  const l = fieldHash(local);
  const r = fieldHash(remote);
  const localChanged = l !== baseHash;
  const remoteChanged = r !== baseHash;
  if (!localChanged && !remoteChanged) return 'unchanged';
  if (localChanged && !remoteChanged) return 'local';
  if (!localChanged) return 'remote';
  return l === r ? 'same' : 'conflict';
}
