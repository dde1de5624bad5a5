import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node, YAMLMap } from 'yaml';
import type { Problem } from '../errors.js';

/**
 * One parsed YAML file with what messages need: the document, a LineCounter for
 * `line:col`, and the source text (to quote a value in a hint).
 */
export interface ParsedYaml {
  /** relative to the repository root, `/`-separated */
  file: string;
  text: string;
  doc: Document.Parsed;
  lc: LineCounter;
  /** the top-level mapping */
  root: YAMLMap;
  /** `root` as plain data */
  data: Record<string, unknown>;
}

export interface Position {
  line: number;
  col: number;
}

export type YamlPath = readonly (string | number)[];

/** Cap on alias expansion so a "billion laughs" file is a problem, not an out-of-memory. */
const MAX_ALIAS_COUNT = 100;

/** First line of a yaml library message, without its ` at line N, column M:` code frame. */
function shortMessage(message: string): string {
  const first = message.split('\n')[0];
  return first.replace(/ at line \d+, column \d+:?$/, '').trim();
}

export function problemAt(
  p: { file: string },
  pos: Position,
  code: string,
  message: string,
  hint?: string,
  severity?: 'warning',
): Problem {
  return {
    file: p.file,
    line: pos.line,
    col: pos.col,
    code,
    message,
    ...(hint ? { hint } : {}),
    ...(severity ? { severity } : {}),
  };
}

/**
 * Parses a file that must hold one YAML mapping. Never throws: syntax errors, an empty file,
 * a non-mapping and alias bombs come back as problems (and no `parsed`).
 */
export function parseYamlFile(
  file: string,
  text: string,
  what: string,
): { parsed?: ParsedYaml; problems: Problem[] } {
  const lc = new LineCounter();
  const problems: Problem[] = [];
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true, logLevel: 'error' });
  } catch (err) {
    // the yaml library reports, it does not throw; guard anyway so the loader never does
    return { problems: [problemAt({ file }, { line: 1, col: 1 }, 'yaml_syntax', `cannot parse YAML: ${String(err)}`)] };
  }
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    problems.push(
      problemAt({ file }, pos, 'yaml_syntax', `YAML syntax error: ${shortMessage(e.message)}`, syntaxHint(e.code)),
    );
  }
  if (problems.length > 0) return { problems };
  for (const w of doc.warnings) {
    const pos = w.linePos?.[0] ?? lc.linePos(w.pos[0]);
    problems.push(problemAt({ file }, pos, 'yaml_warning', shortMessage(w.message), undefined, 'warning'));
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) {
    problems.push(problemAt({ file }, { line: 1, col: 1 }, 'empty_file', `the file is empty: ${what} needs at least a \`title\``));
    return { problems };
  }
  if (!isMap(root)) {
    const pos = posOf({ lc }, root);
    problems.push(problemAt({ file }, pos, 'not_a_mapping', `${what} must be a mapping of keys (like \`title: …\`), not ${describeNode(root)}`));
    return { problems };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    problems.push(
      problemAt({ file }, { line: 1, col: 1 }, 'yaml_syntax', `cannot read the YAML: ${err instanceof Error ? err.message : String(err)}`),
    );
    return { problems };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    problems.push(problemAt({ file }, { line: 1, col: 1 }, 'not_a_mapping', `${what} must be a mapping of keys`));
    return { problems };
  }
  return { parsed: { file, text, doc, lc, root, data: data as Record<string, unknown> }, problems };
}

function syntaxHint(code: string): string | undefined {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'each key may appear once; remove or merge the other one';
    case 'MULTIPLE_DOCS':
      return 'one file holds one item; remove the `---` separator or split the file';
    case 'TAB_AS_INDENT':
      return 'indent with spaces, not tabs';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
      return 'check the indentation and closing brackets or quotes';
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return 'a value containing `: ` or `#` must be quoted';
    default:
      return undefined;
  }
}

export function posOf(p: { lc: LineCounter }, node: Node | null | undefined): Position {
  const offset = node?.range?.[0];
  if (offset === undefined) return { line: 1, col: 1 };
  return p.lc.linePos(offset);
}

/** The line of each top-level key, for messages of later stages. */
export function keyLines(p: ParsedYaml): Record<string, number> {
  const lines: Record<string, number> = {};
  for (const pair of p.root.items) {
    if (isScalar(pair.key)) lines[String(pair.key.value)] = posOf(p, pair.key).line;
  }
  return lines;
}

interface Located {
  /** the node at the path (a value) when it exists */
  node?: Node;
  /** the key node when the last path element is a mapping key that exists */
  keyNode?: Node;
  /** the deepest existing node on the path */
  nearest: Node;
}

/** Finds the node a zod path points at. */
export function locate(root: Node, path: YamlPath): Located {
  let cur: Node = root;
  let keyNode: Node | undefined;
  for (const seg of path) {
    keyNode = undefined;
    if (isMap(cur)) {
      const pair = cur.items.find((it) => isPair(it) && isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) return { nearest: cur };
      keyNode = pair.key as Node;
      if (pair.value === null || pair.value === undefined) return { keyNode, nearest: keyNode };
      cur = pair.value as Node;
    } else if (isSeq(cur) && typeof seg === 'number') {
      const item = cur.items[seg];
      if (item === undefined || item === null) return { nearest: cur };
      cur = item as Node;
    } else {
      return { nearest: cur };
    }
  }
  return { node: cur, keyNode, nearest: cur };
}

function describeNode(node: Node): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return describeValue(node.value);
  return 'something else';
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'empty';
  if (typeof value === 'string') return 'a text';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return `\`${String(value)}\``;
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** The source text of a node (to quote it in a hint). */
export function sourceOf(p: ParsedYaml, node: Node | undefined): string | undefined {
  const r = node?.range;
  if (!r) return undefined;
  return p.text.slice(r[0], r[1]);
}

/** Value at a path in plain data. */
export function valueAt(data: unknown, path: YamlPath): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Problems in reading order: by file, then position. Sorts in place and returns the array. */
export function sortProblems(problems: Problem[]): Problem[] {
  return problems.sort(
    (a, b) => byCodeUnits(a.file, b.file) || a.line - b.line || a.col - b.col || byCodeUnits(a.message, b.message),
  );
}
