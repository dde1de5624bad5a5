import type { z } from 'zod';
import type { Problem } from '../errors.js';
import { CASE_FIELDS, impliedTemplate, setField, STEP_GROUP_FIELDS, type CaseTemplate } from '../fields.js';
import type { DesiredCase, DesiredCaseFields, DesiredGroupStep, DesiredStep, DesiredStepGroup, DesiredStepGroupFields } from '../model.js';
import { stepGroupSchema, testCaseSchema, type actionStepSchema, type caseStepSchema, type StepGroupInput, type TestCaseInput } from './file-schemas.js';
import { documentSourceMap, fastParseYaml, type SourceMap } from './fast-yaml.js';
import { parseYamlFile, problemAt, type Position } from './yaml-source.js';
import { zodProblems } from './zod-problems.js';
import type { GherkinOptions } from './gherkin-options.js';

type TestCaseStep = z.infer<typeof caseStepSchema>;
const STEPS_KEY = 'steps';
const TEMPLATE_KEY = 'template';

/** A parsed item with the positions cross-file rules report at. */
export interface Parsed<T> {
  item: T;
  idPos?: Position;
  titlePos: Position;
}

type FileResult<T> = { parsed?: Parsed<T>; problems: Problem[] };

/** How a file is read. */
export interface ReadOptions {
  /** every file read with the `yaml` document, none the fast way (`npm run bench` compares the two) */
  exactYaml?: boolean;
  /** how `.feature` files map to cases (`gherkin:` of tmsync.yaml) @default GHERKIN_DEFAULTS */
  gherkin?: GherkinOptions;
}

/**
 * One test case file → a `DesiredCase` (its `folderPath` is filled in by the loader) or
 * problems. Schema first (zod), then the rules between fields. A plainly written file is read the
 * fast way (`fastParseYaml`); any file with a problem is read again with the `yaml` document, so
 * problems and their positions are always that exact read's.
 */
export function parseCaseFile(file: string, text: string, options: ReadOptions = {}): FileResult<DesiredCase> {
  const fast = options.exactYaml ? undefined : fastParseYaml(text, ['steps']);
  if (fast) {
    const result = testCaseSchema.safeParse(fast.data);
    if (result.success) {
      const r = caseFromInput(file, result.data, fast.map, []);
      if (r.parsed && r.problems.length === 0) return r;
    }
  }
  const { parsed: p, problems } = parseYamlFile(file, text, 'a test case');
  if (!p) return { problems };
  const result = testCaseSchema.safeParse(p.data);
  if (!result.success) return { problems: [...problems, ...zodProblems(p, result.error.issues, testCaseSchema, 'case')] };
  return caseFromInput(file, result.data, documentSourceMap(p), problems);
}

function caseFromInput(file: string, input: TestCaseInput, map: SourceMap, problems: Problem[]): FileResult<DesiredCase> {
  const p = { file };
  const values: Record<string, unknown> = input;
  // a list of steps implies STEPS; any field of template TCD (steps as a text) implies TCD
  const isList = Array.isArray(values[STEPS_KEY]);
  const implied = isList ? 'STEPS' : impliedTemplate((f) => f.template === 'TCD' && values[f.key] !== undefined);
  const written = values[TEMPLATE_KEY] as CaseTemplate | undefined;
  const fields: DesiredCaseFields = {};
  for (const f of CASE_FIELDS) {
    const value = values[f.key];
    if (f.kind === 'template') {
      const template = written ?? implied;
      if (template !== undefined) setField(fields, f, 'model', template);
    } else if (value === undefined || Array.isArray(value) !== (f.kind === 'steps' || f.kind === 'labels')) {
      // the other form of `steps`
    } else if (f.kind === 'steps') {
      setField(fields, f, 'model', (value as TestCaseStep[]).map((s, i): DesiredStep => {
        const source = { file, ...map.itemPos(f.key, i) };
        return 'use' in s
          ? { kind: 'use', use: s.use, source }
          : { kind: 'step', action: s.action, expected: s.expected ?? '', source };
      }));
    } else if (isList && f.template === 'TCD') {
      problems.push(
        problemAt(
          p,
          map.keyPos(f.key)!,
          'expected_results_with_steps_list',
          `\`${f.key}\` goes with \`steps\` written as a text (template TCD), not with a list of steps`,
          'with a list, give each step its own `expected:`; or write `steps` as a text',
        ),
      );
    } else {
      setField(fields, f, 'model', value);
    }
  }

  if (written !== undefined && implied !== undefined && written !== implied) {
    problems.push(
      problemAt(
        p,
        map.keyPos('template')!,
        'template_mismatch',
        `\`template: ${written}\` contradicts \`steps\` written as ${implied === 'STEPS' ? 'a list (template STEPS)' : 'a text (template TCD)'}`,
        'remove `template:`; the form of `steps` implies it',
      ),
    );
  }
  if (problems.some((x) => x.severity !== 'warning')) return { problems };

  const item: DesiredCase = {
    file,
    folderPath: [],
    ...(input.id !== undefined ? { id: input.id } : {}),
    // `tmsync export` writes it out as the case's identity in the tool it came from
    ...(input.source !== undefined ? { source: input.source } : {}),
    ...(input.automation !== undefined ? { automation: { tests: input.automation.tests } } : {}),
    title: input.title,
    fields,
    lines: map.keyLines(),
  };
  return { parsed: { item, idPos: map.keyPos('id'), titlePos: map.keyPos('title')! }, problems };
}

/** One step group file → a `DesiredStepGroup` keyed by its file stem, or problems. */
export function parseStepGroupFile(
  file: string,
  key: string,
  text: string,
  options: ReadOptions = {},
): FileResult<DesiredStepGroup> {
  const fast = options.exactYaml ? undefined : fastParseYaml(text, ['steps']);
  if (fast) {
    const result = stepGroupSchema.safeParse(fast.data);
    if (result.success) return stepGroupFromInput(file, key, result.data, fast.map, []);
  }
  const { parsed: p, problems } = parseYamlFile(file, text, 'a step group');
  if (!p) return { problems };
  const result = stepGroupSchema.safeParse(p.data);
  if (!result.success) return { problems: [...problems, ...zodProblems(p, result.error.issues, stepGroupSchema, 'step_group')] };
  return stepGroupFromInput(file, key, result.data, documentSourceMap(p), problems);
}

function stepGroupFromInput(file: string, key: string, input: StepGroupInput, map: SourceMap, problems: Problem[]): FileResult<DesiredStepGroup> {
  const values: Record<string, unknown> = input;
  const fields = {} as DesiredStepGroupFields;
  for (const f of STEP_GROUP_FIELDS) {
    const value = values[f.key];
    if (f.kind === 'steps') {
      const steps = (value ?? []) as z.infer<typeof actionStepSchema>[];
      setField(fields, f, 'model', steps.map((s, i): DesiredGroupStep => ({ action: s.action, expected: s.expected ?? '', source: { file, ...map.itemPos(f.key, i) } })));
    } else if (value !== undefined) {
      setField(fields, f, 'model', value);
    }
  }
  const item: DesiredStepGroup = {
    key,
    file,
    ...(input.id !== undefined ? { id: input.id } : {}),
    title: input.title,
    ...fields,
    lines: map.keyLines(),
  };
  return { parsed: { item, idPos: map.keyPos('id'), titlePos: map.keyPos('title')! }, problems };
}
