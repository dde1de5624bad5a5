import { dialects } from '@cucumber/gherkin';
import { TmsyncError } from '../errors.js';
import { foldSteps, type StepResult } from './cucumber-outcome.js';
import { lineCol } from '../xml-scan.js';
import type { GherkinSource, RecordAttachment, TestRecord } from './record.js';

/**
 * Cucumber JSON (`--format json` of cucumber-js, the `json` plugin of cucumber-jvm, cucumber-ruby,
 * behave's `json` formatter): one record per scenario element, its outcome the worst of its steps
 * and hooks (cucumber-outcome.ts). The dialects differ, and each difference is read here:
 *
 * - cucumber-js: hooks are steps with keyword `Before`/`After` (and `hidden`); tags carry `line`;
 *   background steps are in each scenario's `steps`; durations in nanoseconds.
 * - cucumber-jvm: a `background` element before each scenario holds its background steps' results;
 *   hooks are the scenario's `before`/`after` arrays and a step's own `before`/`after`; tags carry
 *   `location.line`; `embeddings` on steps and hooks; nanoseconds.
 * - behave: tags are strings without `@`, and a scenario's tags are its own; `location` is
 *   `path:line` (no `uri`); a scenario's `status` (`hook_error` when a hook failed); `untested`
 *   steps; durations in seconds; error messages as arrays of lines; outline rows named
 *   `Name -- @1.1 Examples`. Its older versions wrote `{"features": [...]}`.
 */

type Json = Record<string, unknown>;

/** Every language's `Scenario Outline` keywords: tells an outline's row from a plain scenario. */
const OUTLINE_KEYWORDS = new Set(Object.values(dialects).flatMap((d) => d.scenarioOutline.map((k) => k.trim().toLowerCase())));

/** behave's default name of an outline row: `{name} -- @{row.id} {examples.name}`. */
const BEHAVE_ROW = /^(.*?) -- @\d+\.\d+(?: (.*))?$/s;

/** Parses the text of a Cucumber JSON report (`report` names it in errors). */
export function parseCucumberJson(text: string, report: string): TestRecord[] {
  const data = parseJsonText(text, report);
  const features = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.features) ? data.features : undefined;
  if (features === undefined) {
    throw invalid(report, `is not a Cucumber JSON report: it holds ${describe(data)}, not an array of features`, 'pass the file cucumber wrote with --format json (cucumber-js), plugin json:FILE (cucumber-jvm) or -f json -o FILE (behave)');
  }
  const out: TestRecord[] = [];
  features.forEach((feature, i) => {
    if (!isObject(feature)) throw invalid(report, `features[${i}] is ${describe(feature)}, not a feature object`);
    readFeature(feature, `features[${i}]`, report, out);
  });
  return out;
}

/** JSON.parse with the file's line and column on a syntax error, and a word for a truncated file. */
export function parseJsonText(text: string, report: string, lineOffset = 0): unknown {
  if (text.trim() === '') throw invalid(report, 'is empty', 'check that the test run wrote its report (a run that crashed early leaves an empty file)');
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message)?.[1];
    const truncated = at === undefined ? /end of (JSON|data) input|Unterminated/i.test(message) : Number(at) >= text.trimEnd().length;
    const pos = at !== undefined ? Number(at) : text.length;
    const { line, col } = lineCol(text, pos);
    const where = `${report}:${line + lineOffset}:${col}`;
    const what = truncated ? 'the file ends before the JSON is complete: it looks truncated' : `is not valid JSON (${message.replace(/^[^:]*JSON[^:]*: /, '').replace(/\s+in JSON at position \d+.*$/, '')})`;
    throw new TmsyncError('invalid_report', `${where} ${truncated ? `is not complete: ${what}` : what}`, {
      hint: truncated ? 'check that the test runner finished writing the report (a crashed or killed run leaves it truncated)' : 'pass the report file as the test runner wrote it',
      details: { file: report, line: line + lineOffset, col },
    });
  }
}

interface FeatureContext {
  report: string;
  uri: string;
  name: string;
  tags: { name: string; line?: number }[];
  /** behave writes durations in seconds, the others in nanoseconds */
  seconds: boolean;
}

function readFeature(feature: Json, path: string, report: string, out: TestRecord[]): void {
  const behave = typeof feature.location === 'string' && feature.uri === undefined;
  const uri = normalizeUri(str(feature.uri) ?? str(feature.location)?.replace(/:\d+$/, '') ?? '');
  const ctx: FeatureContext = { report, uri, name: str(feature.name) ?? '', tags: readTags(feature.tags), seconds: behave };
  const elements = feature.elements ?? [];
  if (!Array.isArray(elements)) throw invalid(report, `${path}.elements is ${describe(elements)}, not an array`);
  // cucumber-jvm: the background element before a scenario holds that scenario's background results
  let background: Json[] = [];
  elements.forEach((element, j) => {
    if (!isObject(element)) throw invalid(report, `${path}.elements[${j}] is ${describe(element)}, not an object`);
    const type = str(element.type)?.toLowerCase();
    if (type === 'background') {
      background = stepsOf(element, `${path}.elements[${j}]`, report);
      return;
    }
    // a template of older reporters, never run: its rows follow as scenarios
    if (type === 'scenario_outline') return;
    out.push(readScenario(element, background, `${path}.elements[${j}]`, ctx));
    background = [];
  });
}

function stepsOf(element: Json, path: string, report: string): Json[] {
  const steps = element.steps ?? [];
  if (!Array.isArray(steps)) throw invalid(report, `${path}.steps is ${describe(steps)}, not an array`);
  return steps.map((s, k) => {
    if (!isObject(s)) throw invalid(report, `${path}.steps[${k}] is ${describe(s)}, not a step object`);
    return s;
  });
}

function readScenario(element: Json, background: Json[], path: string, ctx: FeatureContext): TestRecord {
  const steps = stepsOf(element, path, ctx.report);
  const results: StepResult[] = [];
  const attachments: RecordAttachment[] = [];
  const hooks = (list: unknown, what: string) => {
    if (!Array.isArray(list)) return;
    for (const h of list) if (isObject(h)) collect(h, `${what} hook${hookName(h)}`);
  };
  const collect = (item: Json, what: string) => {
    readEmbeddings(item.embeddings, attachments);
    const result = item.result;
    if (!isObject(result)) return; // a background template step of behave: not run here
    const status = str(result.status) ?? 'unknown';
    const error = Array.isArray(result.error_message) ? result.error_message.join('\n') : str(result.error_message);
    const d = typeof result.duration === 'number' ? (ctx.seconds ? result.duration * 1000 : result.duration / 1e6) : undefined;
    results.push({ status, what, ...(error !== undefined ? { error } : {}), ...(d !== undefined ? { durationMs: d } : {}) });
  };
  hooks(element.before, 'Before');
  for (const step of [...background, ...steps]) {
    hooks(step.before, 'BeforeStep');
    const keyword = str(step.keyword)?.trim() ?? '';
    // cucumber-js writes hooks as steps: keyword Before/After, no name
    const isHook = step.hidden === true || ((keyword === 'Before' || keyword === 'After') && step.name === undefined);
    collect(step, isHook ? `${keyword} hook${hookName(step)}` : `${keyword} ${str(step.name) ?? ''}`.trim());
    hooks(step.after, 'AfterStep');
  }
  hooks(element.after, 'After');
  // behave: a hook's failure shows only in the scenario's status (its other statuses follow from the steps)
  const own = str(element.status);
  if (own === 'hook_error' || own === 'cleanup_error') results.push({ status: own, what: 'a hook of the scenario' });
  const folded = foldSteps(results);

  const name = str(element.name) ?? '';
  const gherkin = gherkinOf(element, name, steps, ctx);
  const record: TestRecord = {
    name,
    classname: ctx.name,
    outcome: folded.outcome,
    properties: {},
    suites: [ctx.name],
    report: ctx.report,
    gherkin,
  };
  if (ctx.uri !== '') record.file = ctx.uri;
  if (folded.message !== undefined) record.message = folded.message;
  if (folded.durationMs !== undefined) record.durationMs = Math.round(folded.durationMs);
  if (attachments.length > 0) record.attachments = attachments;
  return record;
}

function gherkinOf(element: Json, name: string, steps: Json[], ctx: FeatureContext): GherkinSource {
  const own = readTags(element.tags);
  // a tag written below the scenario's last step sits on its Examples
  const lastStep = Math.max(0, ...steps.map((s) => (typeof s.line === 'number' ? s.line : 0)));
  const featureTag = (t: { name: string; line?: number }) => ctx.tags.some((f) => f.name === t.name && (f.line === undefined || t.line === undefined || f.line === t.line));
  const tags: GherkinSource['tags'] = ctx.tags.map((t) => ({ name: t.name, level: 'feature' }));
  for (const t of own) {
    if (featureTag(t)) continue;
    tags.push({ name: t.name, level: t.line !== undefined && lastStep > 0 && t.line > lastStep ? 'examples' : 'scenario' });
  }
  const source: GherkinSource = { uri: ctx.uri, feature: ctx.name, scenario: name, tags };
  const behaveRow = BEHAVE_ROW.exec(name);
  const id = str(element.id) ?? '';
  if (behaveRow) {
    source.scenario = behaveRow[1];
    source.row = behaveRow[2] !== undefined ? { examples: behaveRow[2] } : {};
  } else if (/;\d+$/.test(id) || OUTLINE_KEYWORDS.has((str(element.keyword) ?? '').trim().toLowerCase()) || tags.some((t) => t.level === 'examples')) {
    source.row = {};
  }
  const line = typeof element.line === 'number' ? element.line : Number(/:(\d+)$/.exec(str(element.location) ?? '')?.[1]);
  if (Number.isInteger(line) && line > 0) source.line = line;
  return source;
}

/** Tags as `{name, line}` from every dialect: `{name, line}`, `{name, location: {line}}`, or `"name"` (behave, no `@`). */
function readTags(value: unknown): { name: string; line?: number }[] {
  if (!Array.isArray(value)) return [];
  const out: { name: string; line?: number }[] = [];
  for (const t of value) {
    const raw = typeof t === 'string' ? t : isObject(t) ? str(t.name) : undefined;
    if (raw === undefined || raw.trim() === '') continue;
    const name = raw.startsWith('@') ? raw : `@${raw}`;
    const line = isObject(t) ? (typeof t.line === 'number' ? t.line : isObject(t.location) && typeof t.location.line === 'number' ? t.location.line : undefined) : undefined;
    out.push(line !== undefined ? { name, line } : { name });
  }
  return out;
}

function readEmbeddings(value: unknown, into: RecordAttachment[]): void {
  if (!Array.isArray(value)) return;
  for (const e of value) {
    if (!isObject(e) || typeof e.data !== 'string') continue;
    const mediaType = str(e.mime_type) ?? (isObject(e.media) ? str(e.media.type) : undefined) ?? 'application/octet-stream';
    // cucumber-js writes a text attachment's body as it is, not in base64
    const base64 = e.data.length % 4 === 0 && /^[A-Za-z0-9+/\r\n]*={0,2}$/.test(e.data);
    const a: RecordAttachment = { mediaType, body: e.data, encoding: base64 ? 'base64' : 'identity' };
    const fileName = str(e.name);
    if (fileName !== undefined) a.fileName = fileName;
    into.push(a);
  }
}

function hookName(h: Json): string {
  const location = isObject(h.match) ? str(h.match.location) : undefined;
  return location ? ` (${location})` : '';
}

/** `classpath:features/a.feature`, `file:///C:/x/a.feature`, `features\a.feature` → a `/` path. */
export function normalizeUri(uri: string): string {
  return uri
    .replace(/^classpath:/, '')
    .replace(/^file:(\/\/)?/, '')
    .replace(/\\/g, '/')
    .replace(/^\.\//, '');
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function invalid(report: string, what: string, hint?: string): TmsyncError {
  return new TmsyncError('invalid_report', `${report} ${what}`, {
    hint: hint ?? 'pass the report file as the test runner wrote it',
    details: { file: report, format: 'cucumber-json' },
  });
}
