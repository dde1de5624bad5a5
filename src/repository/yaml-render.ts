import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, isMap, parse, Scalar, visit } from 'yaml';
import type { ToStringOptions } from 'yaml';
import type { DesiredCaseFields } from '../model.js';
import { caseDocument, defined, stepGroupDocument, type StepGroupDocumentInput } from './documents.js';
import { fastParseYaml } from './fast-yaml.js';
import { emitPlainYaml, fitsFlow, YAML11_SPECIAL } from './yaml-emit.js';

/** Rendering YAML files whole: what a new file of pull, init and the tests holds. */

/**
 * Output options shared by every writer: no folding of long lines (a diff of a long title
 * stays one line), multi-line text as `|` literal blocks.
 */
export const TO_STRING: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  blockQuote: 'literal',
  indentSeq: true,
  flowCollectionPadding: false,
};

/**
 * Multi-line text of only spaces, tabs and line breaks: the `yaml` library writes it as a block
 * scalar without an indentation indicator, which reads back differently.
 */
const BLANK_MULTILINE = /^[ \t\r\n]*\n[ \t\r\n]*$/;

export function quoteSpecialStrings(node: unknown, allMultiline = false): void {
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
export function flowable(node: unknown): boolean {
  let ok = true;
  visit(node as Document, {
    Scalar(_key, s) {
      if (typeof s.value === 'string' && !fitsFlow(s.value)) ok = false;
    },
    Map() {
      ok = false;
    },
  });
  return ok;
}

interface RenderOptions {
  /** a `yaml-language-server: $schema=…` comment written as the first line (without `#`) */
  schemaComment?: string;
}

/** A YAML document of `obj`'s keys in their order; `flowKeys`: short lists written `[a, b]`. */
export function renderYaml(obj: Record<string, unknown>, options: RenderOptions, flowKeys: readonly string[] = []): string {
  // the plain shapes of nearly every file are written directly: the library's text, in forms
  // that read back exactly by construction (yaml-emit.ts; its tests read every one back)
  const direct = emitPlainYaml(obj, flowKeys, options.schemaComment);
  if (direct !== undefined) return direct;
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

/** `obj` as the `yaml` library writes it (what {@link emitPlainYaml} must match). */
export function renderYamlWithLibrary(obj: Record<string, unknown>, options: RenderOptions, flowKeys: readonly string[] = []): string {
  return renderOnce(obj, options, flowKeys, false);
}

function renderOnce(obj: Record<string, unknown>, options: RenderOptions, flowKeys: readonly string[], allQuoted: boolean): string {
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

/** A test case as YAML: {@link caseDocument} without its absent keys. */
export function renderCaseYaml(
  c: { id?: string; title: string; fields: DesiredCaseFields },
  options: RenderOptions = {},
): string {
  return renderYaml(defined(caseDocument(c)), options, ['labels']);
}

/** A step group as YAML: {@link stepGroupDocument} without its absent keys. */
export function renderStepGroupYaml(g: StepGroupDocumentInput, options: RenderOptions = {}): string {
  return renderYaml(defined(stepGroupDocument(g)), options, ['labels']);
}

/** `_folder.yaml`: id, name, order. */
export function renderFolderYaml(f: { id?: string; name?: string; order?: number }, options: RenderOptions = {}): string {
  const o: Record<string, unknown> = {};
  if (f.id !== undefined) o.id = f.id;
  if (f.name !== undefined) o.name = f.name;
  if (f.order !== undefined) o.order = f.order;
  return renderYaml(o, options);
}
