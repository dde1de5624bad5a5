import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, isMap, isScalar, parse, parseDocument, Scalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import { TmsyncError } from '../errors.js';
import { flowable, quoteSpecialStrings, TO_STRING } from './yaml-render.js';

/** Editing a YAML file's text in place: the field-level edits of write-back and pull. */

export interface EditTextOptions {
  /** the file as messages name it */
  file: string;
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
 * Sets top-level keys of a YAML text, keeping its comments, key order and formatting: an existing
 * key keeps its place (and a trailing comment on its value), a new key goes first in the mapping
 * (so `id` lands at the top) or at its place in `options.order`, `undefined` removes a key.
 * `text` undefined: a new file. Line endings and a byte-order mark are the caller's.
 */
export function editYamlText(text: string | undefined, fields: Record<string, unknown>, options: EditTextOptions): string {
  const file = options.file;
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
  const map = doc.contents;
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
  return out;
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
  const after = keyStarts(next.contents);
  if (after.length === 0 || after.length !== before.length) return updated;
  const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
  const starts = (text: string, keys: typeof before): number[] | undefined => {
    const out: number[] = [];
    for (const k of keys) {
      if (k.key === undefined || k.start === undefined) return undefined;
      const line = lineStart(text, k.start);
      // the key must open its line (a block mapping), each on a line of its own
      if (text.slice(line, k.start).trim() !== '' || (out.length > 0 && line <= out[out.length - 1])) return undefined;
      out.push(line);
    }
    return out;
  };
  if (after.some((a, i) => a.key !== before[i].key)) return updated;
  const was = starts(original, before);
  const now = starts(updated, after);
  if (!was || !now) return updated;
  let out = original.slice(0, was[0]);
  for (let i = 0; i < was.length; i++) {
    out += changed.has(after[i].key!) ? updated.slice(now[i], now[i + 1] ?? updated.length) : original.slice(was[i], was[i + 1] ?? original.length);
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