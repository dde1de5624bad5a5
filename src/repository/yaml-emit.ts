/**
 * A direct writer for the plain shapes of the repository's files: the text the `yaml` library
 * writes with {@link TO_STRING} (and the quoting of `quoteSpecialStrings`), character for
 * character, without building a document first. It knows only what it can write exactly; for
 * anything else (a string with an escape, a block scalar with an indentation indicator or
 * kept line breaks, a float, a null, a list inside a list, a key that is not a plain name) it
 * answers undefined and the caller renders with the library. What it writes reads back as the
 * object it was given (plain scalars only where the library's own tests allow them, quotes without
 * escapes, literal blocks without indentation indicators): the caller takes it without the
 * read-back check a library rendering gets. Tests hold the two writers to the same text, and
 * read every direct text back, over generated documents.
 */

/** Map keys it writes: plain names the library writes as they are. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Strings YAML 1.1 tools read as booleans or null. The `yaml` library (YAML 1.2) writes them
 * plain; the writers quote them (`quoteSpecialStrings`, and here) so no other tool and no reader
 * mistakes `yes` for `true`.
 */
export const YAML11_SPECIAL = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|=|<<)$/;

/** What the library's core schema would read as another type than a string: it quotes these. */
const CORE_SCHEMA = [
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

/**
 * Characters the library writes double-quoted wherever they are, and those some readers take for
 * a line break or a byte order mark: left to the library and its read-back check.
 */
// eslint-disable-next-line no-control-regex
const NOT_DIRECT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}\u2028\u2029\uFEFF]/u;

/** The library's test for a plain scalar it must quote (or, with a line break, write as a block). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;

/** `%`, `---` or `...` at the start of a line: the library indents or quotes such text its own way. */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

/** A flow item the library quotes. */
const FLOW_INDICATOR = /[[\]{},]/;

const GIVE_UP = Symbol('give up');
type Written = string | typeof GIVE_UP;

/** A one-line string as the library writes it: plain where it can, else quoted; or {@link GIVE_UP}. */
function oneLine(s: string, inFlow: boolean): Written {
  if (DOCUMENT_MARKER.test(s)) return GIVE_UP;
  if (YAML11_SPECIAL.test(s)) return JSON.stringify(s);
  if (s === '' || NOT_PLAIN.test(s) || (inFlow && FLOW_INDICATOR.test(s)) || CORE_SCHEMA.some((re) => re.test(s))) return quoted(s);
  return s;
}

/**
 * The library's quoting of a one-line string: single quotes when it holds `"` and no `'`, else
 * double quotes; {@link GIVE_UP} when the double-quoted form needs an escape the library rewrites.
 */
function quoted(s: string): Written {
  if (s.includes('"') && !s.includes("'")) return `'${s}'`;
  const json = JSON.stringify(s);
  return json.includes('\\') ? GIVE_UP : json;
}

/**
 * A multi-line string as a literal block whose lines start at `indent`: `|-` when it ends in a
 * character, `|` when in exactly one line break after one; {@link GIVE_UP} for the rest.
 */
function block(s: string, indent: string): Written {
  const first = s.charCodeAt(0);
  if (first === 32 || first === 10 || first === 9 || DOCUMENT_MARKER.test(s)) return GIVE_UP;
  let chomp: string;
  let body: string;
  const last = s.charCodeAt(s.length - 1);
  if (last !== 10 && last !== 32 && last !== 9) {
    chomp = '-';
    body = s;
  } else {
    const before = s.charCodeAt(s.length - 2);
    if (last !== 10 || before === 10 || before === 32 || before === 9) return GIVE_UP;
    chomp = '';
    body = s.slice(0, -1);
  }
  return `|${chomp}\n${indent}${body.replace(/\n+/g, `$&${indent}`)}`;
}

/** A scalar after `key: ` or `- `, its block lines (if any) at `indent`. */
function scalar(v: unknown, indent: string, inFlow: boolean): Written {
  switch (typeof v) {
    case 'string':
      if (NOT_DIRECT.test(v)) return GIVE_UP;
      // (text of blanks and line breaks only starts with one: left to the library by block)
      if (v.includes('\n')) return inFlow ? GIVE_UP : block(v, indent);
      return oneLine(v, inFlow);
    case 'number':
      return Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : GIVE_UP;
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return GIVE_UP;
  }
}

/** Whether a string may stand in a flow list (`[a, b]`): one line of at most 80 characters. */
export function fitsFlow(s: string): boolean {
  return !s.includes('\n') && !s.includes('\r') && s.length <= 80;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * `[a, b]` for a list the writers put in flow style (`flowKeys`): one-line scalars of at most 80
 * characters; undefined when the list is not such (it is then written as a block).
 */
function flow(items: readonly unknown[]): Written | undefined {
  const out: string[] = [];
  for (const item of items) {
    if (typeof item === 'string' && !fitsFlow(item)) return undefined;
    if (typeof item === 'object' && item !== null) return isRecord(item) ? undefined : GIVE_UP;
    const s = scalar(item, '', true);
    if (s === GIVE_UP) return GIVE_UP;
    out.push(s);
  }
  return `[${out.join(', ')}]`;
}

/** The lines of a list at `indent` (`- ` items), each ending in a line break. */
function sequence(items: readonly unknown[], indent: string): Written {
  let out = '';
  const inner = `${indent}  `;
  for (const item of items) {
    if (Array.isArray(item)) return GIVE_UP;
    if (isRecord(item)) {
      if (Object.keys(item).length === 0) {
        out += `${indent}- {}\n`;
        continue;
      }
      const m = mapping(item, inner, []);
      if (m === GIVE_UP) return GIVE_UP;
      out += `${indent}- ${m.slice(inner.length)}`;
      continue;
    }
    const s = scalar(item, inner, false);
    if (s === GIVE_UP) return GIVE_UP;
    out += `${indent}- ${s}\n`;
  }
  return out;
}

/** The lines of a map at `indent`, each ending in a line break; `flowKeys` only at the top. */
function mapping(obj: Record<string, unknown>, indent: string, flowKeys: readonly string[]): Written {
  let out = '';
  const inner = `${indent}  `;
  for (const key of Object.keys(obj)) {
    if (!PLAIN_KEY.test(key) || YAML11_SPECIAL.test(key)) return GIVE_UP;
    const v = obj[key];
    if (Array.isArray(v)) {
      if (v.length === 0) {
        out += `${indent}${key}: []\n`;
        continue;
      }
      const f = flowKeys.includes(key) ? flow(v) : undefined;
      if (f === GIVE_UP) return GIVE_UP;
      if (f !== undefined) {
        out += `${indent}${key}: ${f}\n`;
        continue;
      }
      const s = sequence(v, inner);
      if (s === GIVE_UP) return GIVE_UP;
      out += `${indent}${key}:\n${s}`;
    } else if (isRecord(v)) {
      if (Object.keys(v).length === 0) {
        out += `${indent}${key}: {}\n`;
        continue;
      }
      const m = mapping(v, inner, []);
      if (m === GIVE_UP) return GIVE_UP;
      out += `${indent}${key}:\n${m}`;
    } else {
      const s = scalar(v, inner, false);
      if (s === GIVE_UP) return GIVE_UP;
      out += `${indent}${key}: ${s}\n`;
    }
  }
  return out;
}

/**
 * `obj` as the `yaml` library writes it with {@link TO_STRING} after `quoteSpecialStrings`, the
 * lists under `flowKeys` in flow style where they fit, `comment` as a first comment line; or
 * undefined when the document holds anything this writer does not write exactly (or the comment
 * is more than one line).
 */
export function emitPlainYaml(obj: Record<string, unknown>, flowKeys: readonly string[] = [], comment?: string): string | undefined {
  if (Object.keys(obj).length === 0 || (comment !== undefined && /[\r\n]/.test(comment))) return undefined;
  const body = mapping(obj, '', flowKeys);
  if (body === GIVE_UP) return undefined;
  // no comment for an empty one, as the library
  return comment ? `# ${comment}\n\n${body}` : body;
}
