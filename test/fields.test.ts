import { describe, expect, expectTypeOf, it } from 'vitest';
import { endpointTable, type BodyOf, type ResponseOf } from '../src/api/endpoints.js';
import * as B from '../src/api/request-schemas.js';
import * as W from '../src/api/resources.js';
import { caseBody } from '../src/apply/operation-requests.js';
import { stepGroupBody } from '../src/apply/operation-requests.js';
import { CASE_FIELD_KEYS, CASE_FIELDS, CASE_FIELDS_BY_KIND, LOOKUP_FIELDS, LOOKUP_LISTS_ALL, LOOKUP_WORDS, STEP_GROUP_FIELD_KEYS, STEP_GROUP_FIELDS, type CaseFieldEntry, type LookupKind, type StepGroupFieldEntry } from '../src/fields.js';
import { LOOKUP_LISTS, lookupNames, type ActualState, type Lookups } from '../src/model.js';
import { buildResolver } from '../src/plan/resolve.js';
import { BackupLookups } from '../src/backup/backup-format.js';
import type { StepGroupBody } from '../src/plan/operations.js';
import { toRemoteStepGroup } from '../src/remote/to-actual.js';
import type { CaseBody } from '../src/plan/operations.js';
import { toRemoteCase } from '../src/remote/to-actual.js';
import { parseCaseFile, parseStepGroupFile } from '../src/repository/case-file.js';
import { parseConfigText } from '../src/repository/config.js';
import { buildSpecJsonSchemas, type TestCaseInput } from '../src/repository/file-schemas.js';
import { caseDocument, stepGroupDocument } from '../src/repository/documents.js';
import { backupCase, backupStepGroup } from '../src/backup/backup-source.js';

/** A plan body with every field of the table set (the STEPS form of `steps`). */
function fullBody(): CaseBody {
  const body: Record<string, unknown> = { title: 'T', folder: { id: 'folder-1' } };
  for (const f of CASE_FIELDS_BY_KIND) {
    if (f.template === 'TCD') continue;
    body[f.remote] =
      f.kind === 'labels'
        ? ['label-1']
        : f.kind === 'steps'
          ? [{ description: 'do', expected: 'done', stepGroup: null }]
          : f.kind === 'template'
            ? 'STEPS'
            : `${f.remote}-value`;
  }
  return body as unknown as CaseBody;
}

describe('the field table', () => {
  it('gives the test case JSON Schema one property per YAML key, after id and title, in the table order', () => {
    const schema = buildSpecJsonSchemas()['test-case.schema.json'] as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['id', 'title', ...CASE_FIELD_KEYS, 'source', 'automation']);
  });

  it('loads every field of a file under its model name and renders it back under its YAML key', () => {
    const yaml = [
      'title: T',
      ...CASE_FIELDS.filter((f) => f.template !== 'TCD' && f.kind !== 'template').map((f) =>
        f.kind === 'labels' ? `${f.key}: [a]` : f.kind === 'steps' ? `${f.key}:\n  - action: do` : `${f.key}: ${f.key} value`,
      ),
    ].join('\n');
    const { parsed, problems } = parseCaseFile('cases/t.yaml', yaml);
    expect(problems).toEqual([]);
    const fields = parsed!.item.fields as Record<string, unknown>;
    for (const f of CASE_FIELDS.filter((x) => x.template !== 'TCD')) expect(fields[f.model], f.model).toBeDefined();
    const doc = caseDocument(parsed!.item);
    for (const f of CASE_FIELDS.filter((x) => x.template !== 'TCD' && x.kind !== 'template')) expect(doc[f.key], f.key).toBeDefined();
  });

  it('sends every field of a plan body under its wire name and reads the answer back under the same model names', () => {
    const body = fullBody();
    const wire = caseBody(body, (ref) => ('id' in ref ? ref.id : ref.op));
    expect(Object.keys(wire)).toEqual(['title', 'folder_id', ...CASE_FIELDS_BY_KIND.filter((f) => f.template !== 'TCD').map((f) => f.wire)]);
    const answer = { ...wire, id: 'case-1', human_id: 'P-1', project_id: 'p', created_at: 1, updated_at: 2 } as unknown as W.TestCase;
    const remote = toRemoteCase(answer) as unknown as Record<string, unknown>;
    for (const f of CASE_FIELDS_BY_KIND.filter((x) => x.template !== 'TCD' && x.kind !== 'steps')) {
      expect(remote[f.remote], f.remote).toEqual((body as unknown as Record<string, unknown>)[f.remote]);
    }
    const backup = backupCase(answer) as unknown as Record<string, unknown>;
    expect(Object.keys(backup)).toEqual(['id', 'human_id', 'folder_id', 'title', ...CASE_FIELDS_BY_KIND.map((f) => f.wire), 'created_at', 'updated_at']);
  });

  it('gives the wire schemas of case bodies and answers one key per table entry, named by its wire name', () => {
    const tableWire = CASE_FIELDS_BY_KIND.map((f) => f.wire);
    const own = (keys: string[]) => keys.filter((k) => tableWire.includes(k));
    expect(own(Object.keys(B.CreateTestCaseBody.shape))).toEqual(tableWire);
    expect(own(Object.keys(B.UpdateTestCaseBody.shape))).toEqual(tableWire);
    expect(own(Object.keys(W.TestCase.shape))).toEqual(tableWire);
    // the rest are the keys that identify a case and place it, not fields of the table
    expect(Object.keys(B.CreateTestCaseBody.shape).filter((k) => !tableWire.includes(k))).toEqual(['title', 'project_id', 'folder_id']);
    expect(Object.keys(W.TestCase.shape).filter((k) => !tableWire.includes(k))).toEqual(['id', 'human_id', 'title', 'folder_id', 'project_id', 'created_at', 'updated_at', 'web_url']);
  });

  it('types the bodies and answers of case endpoints with every wire name of the table', () => {
    type TableWire = CaseFieldEntry['wire'];
    type AnswerShape = (typeof W.TestCase)['shape'];
    expectTypeOf<Extract<keyof BodyOf<'createTestCase'>, TableWire>>().toEqualTypeOf<TableWire>();
    expectTypeOf<Extract<keyof BodyOf<'updateTestCase'>, TableWire>>().toEqualTypeOf<TableWire>();
    expectTypeOf<Extract<keyof AnswerShape, TableWire>>().toEqualTypeOf<TableWire>();
    expectTypeOf<ResponseOf<'getTestCase'>['data']['test_case']['owner_id']>().toEqualTypeOf<string | null | undefined>();
    // a required field is a string in a create body, an optional one may be left out or null
    expectTypeOf<BodyOf<'createTestCase'>['owner_id']>().toEqualTypeOf<string>();
    expectTypeOf<BodyOf<'createTestCase'>['reviewer_id']>().toEqualTypeOf<string | null | undefined>();
  });

  it('makes a required field required by a case create and optional in an update, by the table', () => {
    const base = { title: 'T', folder_id: 'f' };
    const create = B.CreateTestCaseBody.safeParse(base);
    expect(create.success).toBe(false);
    const missing = create.error!.issues.map((i) => i.path[0]).filter((k) => k !== 'folder_id');
    expect(missing).toEqual(CASE_FIELDS_BY_KIND.filter((f) => f.required).map((f) => f.wire));
    expect(B.UpdateTestCaseBody.safeParse(base).success).toBe(true);
  });

  it('lets a case list filter on the text fields of the table', () => {
    const filters: readonly string[] = endpointTable.listTestCases.textFilters;
    expect(filters).toEqual(['title', 'human_id', ...CASE_FIELDS_BY_KIND.filter((f) => f.kind === 'text' || f.kind === 'template').map((f) => f.wire)]);
  });

  it('takes tmsync.yaml defaults for the required fields of the table, under their model names', () => {
    const required = CASE_FIELDS.filter((f) => f.required);
    const schema = buildSpecJsonSchemas()['config.schema.json'] as { properties: { defaults: { properties: Record<string, unknown> } } };
    expect(Object.keys(schema.properties.defaults.properties)).toEqual(required.map((f) => f.key));
    const yaml = ['defaults:', ...required.map((f) => `  ${f.key}: ${f.key} default`)].join('\n');
    const { config, problems } = parseConfigText('tmsync.yaml', yaml);
    expect(problems).toEqual([]);
    expect(config!.defaults).toEqual(Object.fromEntries(required.map((f) => [f.model, `${f.key} default`])));
  });

  it('types a case file as written by the YAML keys of the table, and no other key but the local `source` and `automation`', () => {
    expectTypeOf<TestCaseInput['owner']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TestCaseInput['template']>().toEqualTypeOf<'STEPS' | 'TCD' | undefined>();
    expectTypeOf<TestCaseInput['labels']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<keyof TestCaseInput>().toEqualTypeOf<'id' | 'title' | CaseFieldEntry['key'] | 'source' | 'automation'>();
  });
});

describe('the step group table', () => {
  it('gives the step group JSON Schema one property per YAML key, after id and title, in the table order, then the local `source`', () => {
    const schema = buildSpecJsonSchemas()['step-group.schema.json'] as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['id', 'title', ...STEP_GROUP_FIELD_KEYS, 'source']);
  });

  it('loads every field of a step group file under its model name and renders it back under its YAML key', () => {
    const yaml = ['title: G', ...STEP_GROUP_FIELDS.map((f) => (f.kind === 'labels' ? `${f.key}: [a]` : f.kind === 'steps' ? `${f.key}:\n  - action: do` : `${f.key}: ${f.key} value`))].join('\n');
    const { parsed, problems } = parseStepGroupFile('step_groups/g.yaml', 'g', yaml);
    expect(problems).toEqual([]);
    const item = parsed!.item as unknown as Record<string, unknown>;
    for (const f of STEP_GROUP_FIELDS) expect(item[f.model], f.model).toBeDefined();
    const doc = stepGroupDocument(parsed!.item);
    expect(Object.keys(doc)).toEqual(['id', 'title', ...STEP_GROUP_FIELD_KEYS]);
    for (const f of STEP_GROUP_FIELDS) expect(doc[f.key], f.key).toBeDefined();
  });

  it('sends every field of a step group body under its wire name and reads the answer and backup back under the same names', () => {
    const body: Record<string, unknown> = { title: 'G' };
    for (const f of STEP_GROUP_FIELDS) {
      body[f.remote] = f.kind === 'labels' ? ['label-1'] : f.kind === 'steps' ? [{ description: 'do', expected: 'done' }] : `${f.remote} value`;
    }
    const wire = stepGroupBody(body as unknown as StepGroupBody) as Record<string, unknown>;
    expect(Object.keys(wire)).toEqual(['title', ...STEP_GROUP_FIELDS.map((f) => f.wire)]);
    const steps = wire.steps as { step_description: string; expected_result: string; order: number }[];
    const answer = W.StepGroup.parse({
      ...wire,
      steps: steps.map((s) => ({ id: 's1', step_description: s.step_description, expected_results: s.expected_result, order: s.order, step_group_id: 'g1' })),
      id: 'g1',
      human_id: 'P-SG-1',
      project_id: 'p',
      created_at: 1,
      updated_at: 2,
    });
    const remote = toRemoteStepGroup(answer) as unknown as Record<string, unknown>;
    for (const f of STEP_GROUP_FIELDS.filter((x) => x.kind !== 'steps')) expect(remote[f.remote], f.remote).toEqual(body[f.remote]);
    expect(remote.steps).toEqual([{ id: 's1', description: 'do', expected: 'done', order: 1 }]);
    expect(Object.keys(backupStepGroup(answer))).toEqual(['id', 'human_id', 'title', ...STEP_GROUP_FIELDS.map((f) => f.wire), 'created_at', 'updated_at']);
  });

  it('gives the wire schemas of step group bodies and answers one key per table entry, named by its wire name', () => {
    type TableWire = StepGroupFieldEntry['wire'];
    expectTypeOf<Extract<keyof BodyOf<'createStepGroup'>, TableWire>>().toEqualTypeOf<TableWire>();
    expectTypeOf<Extract<keyof (typeof W.StepGroup)['shape'], TableWire>>().toEqualTypeOf<TableWire>();
    const tableWire: string[] = STEP_GROUP_FIELDS.map((f) => f.wire);
    expect(Object.keys(B.CreateStepGroupBody.shape).filter((k) => tableWire.includes(k))).toEqual(tableWire);
    expect(Object.keys(W.StepGroup.shape).filter((k) => tableWire.includes(k))).toEqual(tableWire);
  });
});

describe('the lookups of the table', () => {
  const lookupKeys = CASE_FIELDS.filter((f) => f.kind === 'lookup').map((f) => f.key);

  it('derive the lookup kinds, their lists and words from the entries of kind lookup', () => {
    expect(LOOKUP_FIELDS.map((f) => f.key)).toEqual(lookupKeys);
    expect(LOOKUP_LISTS_ALL).toEqual([...LOOKUP_FIELDS.map((f) => f.list), 'run_statuses']);
    expect(LOOKUP_WORDS).toEqual({ types: 'type', statuses: 'status', priorities: 'priority', automation_types: 'automation type', run_statuses: 'run status' });
    expect(LOOKUP_LISTS).toEqual({ type: 'types', status: 'statuses', priority: 'priorities', automation_type: 'automationTypes' });
    expectTypeOf<LookupKind>().toEqualTypeOf<'type' | 'status' | 'priority' | 'automation_type'>();
    expectTypeOf<keyof Lookups>().toEqualTypeOf<'types' | 'statuses' | 'priorities' | 'automationTypes' | 'runStatuses'>();
  });

  it('give the backup one lookup list per lookup field and the run statuses, under their wire list names', () => {
    expect(Object.keys(BackupLookups.shape)).toEqual(LOOKUP_LISTS_ALL);
  });

  it('resolve each lookup field by the list the table names', () => {
    const lookups = Object.fromEntries(
      LOOKUP_FIELDS.map((f) => [LOOKUP_LISTS[f.key], [{ id: `${f.key}-id`, name: `${f.key} name`, alias: `${f.key}-alias` }]]),
    ) as unknown as Lookups;
    const resolver = buildResolver({ lookups: { ...lookups, runStatuses: [] }, users: [], labels: [] } as unknown as ActualState);
    for (const f of LOOKUP_FIELDS) {
      expect(resolver.lookup(f.key, `${f.key}-alias`)).toEqual({ ok: true, id: `${f.key}-id` });
      expect(lookupNames({ ...lookups, runStatuses: [] })[f.key]).toEqual([`${f.key} name`]);
    }
    const miss = resolver.lookup('automation_type', 'nope');
    expect(miss.ok ? '' : miss.error.message).toMatch(/automation type/);
  });
});
