import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, isMap, isScalar, parse, parseDocument, Scalar, visit } from 'yaml';
import type { ToStringOptions, YAMLMap } from 'yaml';
import { TmsyncError } from '../errors.js';
import type { DesiredCaseFields, DesiredStep } from '../model.js';

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
  // read back as what we meant, or we fall back to double quotes, which are always exact
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

function renderSteps(steps: readonly DesiredStep[]): unknown[] {
  return steps.map((s) =>
    s.kind === 'use' ? { use: s.use } : s.expected === '' ? { action: s.action } : { action: s.action, expected: s.expected },
  );
}

/** The template `steps`/`expected_results` already imply, if any. */
function impliedTemplate(fields: DesiredCaseFields): 'STEPS' | 'TCD' | undefined {
  if (fields.steps !== undefined) return 'STEPS';
  if (fields.stepsText !== undefined || fields.expectedResults !== undefined) return 'TCD';
  return undefined;
}

/**
 * A test case as YAML, keys in the order people read them: id, title, description,
 * preconditions, template (only when not implied), type, status, priority, automation_type,
 * owner, reviewer, labels, steps, expected_results.
 */
export function renderCaseYaml(
  c: { id?: string; title: string; fields: DesiredCaseFields },
  options: RenderOptions = {},
): string {
  const f = c.fields;
  const o: Record<string, unknown> = {};
  if (c.id !== undefined) o.id = c.id;
  o.title = c.title;
  if (f.description !== undefined) o.description = f.description;
  if (f.preconditions !== undefined) o.preconditions = f.preconditions;
  if (f.template !== undefined && f.template !== impliedTemplate(f)) o.template = f.template;
  if (f.type !== undefined) o.type = f.type;
  if (f.status !== undefined) o.status = f.status;
  if (f.priority !== undefined) o.priority = f.priority;
  if (f.automationType !== undefined) o.automation_type = f.automationType;
  if (f.owner !== undefined) o.owner = f.owner;
  if (f.reviewer !== undefined) o.reviewer = f.reviewer;
  if (f.labels !== undefined) o.labels = [...f.labels];
  if (f.steps !== undefined) o.steps = renderSteps(f.steps);
  else if (f.stepsText !== undefined) o.steps = f.stepsText;
  if (f.expectedResults !== undefined) o.expected_results = f.expectedResults;
  return render(o, options, ['labels']);
}

/** A step group as YAML: id, title, description, labels, steps. */
export function renderStepGroupYaml(
  g: {
    id?: string;
    title: string;
    description?: string;
    labels?: string[];
    steps: readonly { action: string; expected: string }[];
  },
  options: RenderOptions = {},
): string {
  const o: Record<string, unknown> = {};
  if (g.id !== undefined) o.id = g.id;
  o.title = g.title;
  if (g.description !== undefined) o.description = g.description;
  if (g.labels !== undefined) o.labels = [...g.labels];
  o.steps = renderSteps(g.steps.map((s) => ({ kind: 'step', ...s })));
  return render(o, options, ['labels']);
}

/** `_folder.yaml`: id, name, order. */
export function renderFolderYaml(f: { id?: string; name?: string; order?: number }, options: RenderOptions = {}): string {
  const o: Record<string, unknown> = {};
  if (f.id !== undefined) o.id = f.id;
  if (f.name !== undefined) o.name = f.name;
  if (f.order !== undefined) o.order = f.order;
  return render(o, options);
}

export interface SetYamlFieldsOptions {
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
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
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
  // keep Windows line endings and a byte-order mark where the author has them
  if (text?.includes('\r\n')) out = out.replace(/\r?\n/g, '\r\n');
  if (text?.startsWith('\uFEFF') && !out.startsWith('\uFEFF')) out = `\uFEFF${out}`;
  await writeFileAtomic(file, out);
}

type Pair = YAMLMap['items'][number];

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

/**
 * Writes a file so readers see the old or the new content, never a part: a temporary file in
 * the same directory (same file system), then a rename over the target.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, content, 'utf8');
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
