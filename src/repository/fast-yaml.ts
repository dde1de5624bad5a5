import jsyaml from 'js-yaml';
import { keyLines, locate, posOf, type ParsedYaml, type Position } from './yaml-source.js';

/**
 * Where things are in a file, for the positions a parsed item keeps (`id`, `title`, each step) and
 * the messages of later stages. Two sources give the same answers: the `yaml` library's document
 * (`documentSourceMap`, exact for any file) and a scan of the lines of a plainly written file
 * (`fastParseYaml`).
 */
export interface SourceMap {
  /** a top-level key's value (the key itself when it has no value) */
  keyPos(key: string): Position | undefined;
  /** item `i` of the list under a top-level key */
  itemPos(key: string, i: number): Position;
  /** the line of each top-level key */
  keyLines(): Record<string, number>;
}

const NESTED_KEY = /^[A-Za-z_][A-Za-z0-9_-]*:(?: +|$)/;

/**
 * Whether a quoted value or a flow collection goes on past its line. js-yaml takes continuation
 * lines that the core schema's indentation rules refuse (`- action: "a` then `  b"` at the item's
 * column), so a file with one is left to the exact read; the writer renders each on one line.
 */
function hasMultilineQuote(lines: readonly string[]): boolean {
  // the column of the key that opened a block scalar (`|`, `>`): deeper lines are its text
  let blockAt = -1;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (isBlankOrComment(line)) continue;
    const trimmed = startsPlain(line) ? line : line.trimStart();
    const indent = line.length - trimmed.length;
    if (blockAt >= 0 && indent > blockAt) continue;
    blockAt = -1;
    let value = trimmed;
    while (value === '-' || value.startsWith('- ')) value = value.slice(1).trimStart();
    // a block scalar's text lies deeper than its key (or its list item's content)
    const column = line.length - value.length;
    const key = NESTED_KEY.exec(value);
    if (key) value = value.slice(key[0].length);
    const first = value.charCodeAt(0);
    if (first === 124 /* | */ || first === 62 /* > */) blockAt = column;
    else if ((first === 34 /* " */ || first === 39 /* ' */ || first === 91 /* [ */ || first === 123) /* { */ && !closesOnLine(value)) return true;
  }
  return false;
}

/**
 * Whether a line starts with a printable ASCII character other than a space and `#`: then it is
 * neither blank nor a comment, and `trimStart` leaves it as it is (the regular expressions and
 * `trimStart` below decide the other lines; this only spares them the common case).
 */
function startsPlain(line: string): boolean {
  const c = line.charCodeAt(0);
  return c > 32 && c < 127 && c !== 35;
}

/** `BLANK_OR_COMMENT.test(line)` */
function isBlankOrComment(line: string): boolean {
  return !startsPlain(line) && BLANK_OR_COMMENT.test(line);
}

/** Whether the quoted text or flow collection (`[…]`, `{…}`) that `value` starts ends on this line. */
function closesOnLine(value: string): boolean {
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' || c === "'") {
      i = quoteEnd(value, i);
      if (i < 0) return false;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    if (depth <= 0) return true;
  }
  return false;
}

/** The index of the quote closing the one at `start` (`\\"` and `''` do not close), or -1. */
function quoteEnd(value: string, start: number): number {
  const q = value[start];
  for (let i = start + 1; i < value.length; i++) {
    if (q === '"' && value[i] === '\\') i++;
    else if (value[i] === q) {
      if (q === "'" && value[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

export function documentSourceMap(p: ParsedYaml): SourceMap {
  return {
    keyPos(key) {
      const loc = locate(p.root, [key]);
      return loc.node || loc.keyNode ? posOf(p, loc.node ?? loc.keyNode) : undefined;
    },
    itemPos: (key, i) => posOf(p, locate(p.root, [key, i]).node),
    keyLines: () => keyLines(p),
  };
}

const ITEM_START = /^( *)-(?: +|$)/;
const TOP_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(\S.*)?)?$/;

/** keys the core schema reads as null or a boolean, not as a text */
const NOT_A_TEXT_KEY = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const BLANK_OR_COMMENT = /^\s*(?:#.*)?$/;
/**
 * Plain values the two readers type differently: a sign before a decimal point (`-.5`, `+.5e3`) is
 * a number in the core schema of YAML 1.2 (the exact read) and a text to js-yaml; a binary integer
 * (`0b1010`), or a hexadecimal or octal one with a sign (`-0x1F`, `+0o7`), the other way round.
 * Such a file is left to the exact read (a token of this shape inside a text sends it there too,
 * which costs time, never a wrong answer). One expression: one pass over each file.
 */
const NUMBER_TYPED_APART = /(?:^|[\s[{,])(?:[-+]\.[0-9]|[-+]?0b[01_]|[-+]0[xo][0-9a-fA-F_])/m;

/**
 * The fast read of a plainly written file: parsed by js-yaml (much cheaper than the
 * position-keeping `yaml` document; docs/architecture.md, "Two YAML readers, on purpose") with
 * positions from a scan of its lines. Answers `undefined`
 * whenever the file is not plain enough for the scan to be certain (directives, document markers,
 * tabs, quoted or complex keys, a value that starts on the next line, a list in flow style, a
 * plain `-.5` or `0b1`, a parse error): the caller then reads it with the `yaml` library as before, so
 * problems are always reported with that library's positions and words. Both libraries read YAML 1.2's core schema;
 * where they could differ (numbers with `_`), the fast value is not a text and the file's schema
 * refuses it, which also sends the file to the exact read.
 *
 * `listKeys` are the top-level keys whose block lists need item positions.
 */
export function fastParseYaml(text: string, listKeys: readonly string[] = []): { data: Record<string, unknown>; map: SourceMap } | undefined {
  if (text.includes('\t') || /^(?:%|---|\.\.\.)/m.test(text) || NUMBER_TYPED_APART.test(text)) return undefined;
  let data: unknown;
  try {
    data = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, json: false });
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const record = data as Record<string, unknown>;

  const lines = text.split('\n');
  if (hasMultilineQuote(lines)) return undefined;
  // each top-level key at column 1, and where its value starts: on the key's line, or, for a block
  // list or mapping, at the first line of content after it
  const keys: { key: string; line: number; valuePos?: Position }[] = [];
  let open: { key: string; line: number; valuePos?: Position } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (isBlankOrComment(line)) continue;
    if (open) {
      open.valuePos = { line: i + 1, col: line.length - line.trimStart().length + 1 };
      open = undefined;
    }
    const first = line.charCodeAt(0);
    if (first === 32 /* space */) continue;
    if (first === 45 /* - */ && (line.length === 1 || line.charCodeAt(1) === 32)) continue; // a list item at column 1, checked below
    const m = TOP_KEY.exec(line);
    if (!m || NOT_A_TEXT_KEY.test(m[1])) return undefined;
    const value = m[2];
    if (value === undefined || value.startsWith('#')) {
      const v = record[m[1]];
      // a value on the next lines must be a block list or mapping; a text there is left to the exact read
      if (v === null || typeof v !== 'object') return undefined;
      open = { key: m[1], line: i + 1 };
      keys.push(open);
    } else {
      const c = value.charCodeAt(0);
      if (c === 38 /* & */ || c === 42 /* * */ || c === 33 /* ! */) return undefined;
      keys.push({ key: m[1], line: i + 1, valuePos: { line: i + 1, col: line.length - value.length + 1 } });
    }
  }
  if (open) return undefined;
  const dataKeys = Object.keys(record);
  if (keys.length !== dataKeys.length || keys.some((k, i) => k.key !== dataKeys[i])) return undefined;

  const items = new Map<string, Position[]>();
  for (const listKey of listKeys) {
    const value = record[listKey];
    if (!Array.isArray(value) || value.length === 0) continue;
    const at = keys.findIndex((k) => k.key === listKey);
    const k = keys[at];
    // a block list starts on a line after its key: `steps: [ … ]` is not a list to scan
    if (k.valuePos?.line === k.line) return undefined;
    const end = at + 1 < keys.length ? keys[at + 1].line - 1 : lines.length;
    let indent: string | undefined;
    /** `${indent}-` */
    let marker = '';
    const found: Position[] = [];
    for (let i = k.line; i < end; i++) {
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
      if (indent === undefined) {
        if (isBlankOrComment(line)) continue;
        const m = ITEM_START.exec(line);
        if (!m) return undefined;
        indent = m[1]!;
        marker = `${indent}-`;
      }
      if (line.startsWith(marker)) {
        const rest = line.slice(indent.length + 1);
        if (rest === '' || rest.charCodeAt(0) !== 32) {
          if (rest === '') return undefined; // the item starts on the next line
          continue;
        }
        const col = indent.length + 2 + (rest.length - rest.trimStart().length);
        if (rest.trim() === '' || rest.trimStart().startsWith('#')) return undefined;
        found.push({ line: i + 1, col });
      }
    }
    if (found.length !== value.length) return undefined;
    items.set(listKey, found);
  }

  return {
    data: record,
    map: {
      // the keys are distinct (js-yaml refuses a repeated key)
      keyPos: (key) => keys.find((k) => k.key === key)?.valuePos,
      itemPos: (key, i) => items.get(key)?.[i] ?? { line: 1, col: 1 },
      keyLines: () => {
        const lines: Record<string, number> = {};
        for (const k of keys) {
          if (k.key === '__proto__') Object.defineProperty(lines, k.key, { value: k.line, enumerable: true, writable: true, configurable: true });
          else lines[k.key] = k.line;
        }
        return lines;
      },
    },
  };
}
