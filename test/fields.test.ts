import { describe, expect, it } from 'vitest';
import type * as W from '../src/api/resources.js';
import { caseBody } from '../src/apply/requests.js';
import { CASE_FIELD_KEYS, CASE_FIELDS, CASE_FIELDS_BY_KIND } from '../src/fields.js';
import type { CaseBody } from '../src/plan/operations.js';
import { toRemoteCase } from '../src/remote/normalize.js';
import { parseCaseFile } from '../src/repository/case-file.js';
import { buildSpecJsonSchemas } from '../src/repository/schemas.js';
import { caseDocument } from '../src/repository/writer.js';
import { backupCase } from '../src/transfer/backup-source.js';

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
    expect(Object.keys(schema.properties)).toEqual(['id', 'title', ...CASE_FIELD_KEYS]);
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
});
