import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredCaseFields, DesiredStep, DesiredStepGroup } from '../model.js';
import { stepGroupSchema, testCaseSchema, type StepGroupInput, type TestCaseInput } from './schemas.js';
import { documentSourceMap, fastParseYaml, type SourceMap } from './fast-yaml.js';
import { parseYamlFile, problemAt, type Position } from './yaml-source.js';
import { zodProblems } from './zod-problems.js';

/** A parsed item with the positions cross-file rules report at. */
export interface Parsed<T> {
  item: T;
  idPos?: Position;
  titlePos: Position;
}

type FileResult<T> = { parsed?: Parsed<T>; problems: Problem[] };

/**
 * One test case file → a `DesiredCase` (its `folderPath` is filled in by the loader) or
 * problems. Schema first (zod), then the rules between fields. A plainly written file is read the
 * fast way (`fastParseYaml`); any file with a problem is read again with the `yaml` document, so
 * problems and their positions are always that exact read's.
 */
export function parseCaseFile(file: string, text: string): FileResult<DesiredCase> {
  const fast = fastParseYaml(text, ['steps']);
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
  const fields: DesiredCaseFields = {};
  if (input.description !== undefined) fields.description = input.description;
  if (input.preconditions !== undefined) fields.preconditions = input.preconditions;
  const implied = Array.isArray(input.steps)
    ? 'STEPS'
    : input.steps !== undefined || input.expected_results !== undefined
      ? 'TCD'
      : undefined;
  const template = input.template ?? implied;
  if (template !== undefined) fields.template = template;
  if (input.type !== undefined) fields.type = input.type;
  if (input.status !== undefined) fields.status = input.status;
  if (input.priority !== undefined) fields.priority = input.priority;
  if (input.automation_type !== undefined) fields.automationType = input.automation_type;
  if (input.owner !== undefined) fields.owner = input.owner;
  if (input.reviewer !== undefined) fields.reviewer = input.reviewer;
  if (input.labels !== undefined) fields.labels = input.labels;

  if (Array.isArray(input.steps)) {
    fields.steps = input.steps.map((s, i): DesiredStep => {
      const source = { file, ...map.itemPos('steps', i) };
      return 'use' in s
        ? { kind: 'use', use: s.use, source }
        : { kind: 'step', action: s.action, expected: s.expected ?? '', source };
    });
    if (input.expected_results !== undefined) {
      problems.push(
        problemAt(
          p,
          map.keyPos('expected_results')!,
          'expected_results_with_steps_list',
          '`expected_results` goes with `steps` written as a text (template TCD), not with a list of steps',
          'with a list, give each step its own `expected:`; or write `steps` as a text',
        ),
      );
    }
  } else if (input.steps !== undefined) {
    fields.stepsText = input.steps;
  }
  if (input.expected_results !== undefined && !Array.isArray(input.steps)) fields.expectedResults = input.expected_results;

  if (input.template !== undefined && implied !== undefined && input.template !== implied) {
    problems.push(
      problemAt(
        p,
        map.keyPos('template')!,
        'template_mismatch',
        `\`template: ${input.template}\` contradicts \`steps\` written as ${implied === 'STEPS' ? 'a list (template STEPS)' : 'a text (template TCD)'}`,
        'remove `template:`; the form of `steps` implies it',
      ),
    );
  }
  if (problems.some((x) => x.severity !== 'warning')) return { problems };

  const item: DesiredCase = {
    file,
    folderPath: [],
    ...(input.id !== undefined ? { id: input.id } : {}),
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
): FileResult<DesiredStepGroup> {
  const fast = fastParseYaml(text, ['steps']);
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
  const item: DesiredStepGroup = {
    key,
    file,
    ...(input.id !== undefined ? { id: input.id } : {}),
    title: input.title,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.labels !== undefined ? { labels: input.labels } : {}),
    steps: (input.steps ?? []).map((s, i) => ({
      action: s.action,
      expected: s.expected ?? '',
      source: { file, ...map.itemPos('steps', i) },
    })),
    lines: map.keyLines(),
  };
  return { parsed: { item, idPos: map.keyPos('id'), titlePos: map.keyPos('title')! }, problems };
}
