import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASE_FIELDS } from '../src/fields.js';
import { loadConfig, loadRepository } from '../src/repository/index.js';
import { caseBody, caseYaml, demoDefaults, requiredWire } from './support/cases.js';
import { demoConfigYaml } from './support/demo-config.js';

describe('the case builder of the tests (test/support/cases.ts)', () => {
  it('gives every required field of the field table a default, in the file and on the wire', () => {
    const required = CASE_FIELDS.filter((f) => f.required);
    expect(Object.keys(demoDefaults())).toEqual(required.map((f) => f.key));
    const wire = requiredWire({ lookups: { types: 't', statuses: 's', priorities: 'p', automation_types: 'a' }, user: 'u' });
    expect(Object.keys(wire)).toEqual(required.map((f) => f.wire));
    expect(caseBody({ lookups: { types: 't', statuses: 's', priorities: 'p', automation_types: 'a' }, user: 'u' }, { title: 'T', folder_id: 'f', priority_id: 'high' })).toMatchObject({ title: 'T', folder_id: 'f', priority_id: 'high', type_id: 't' });
  });

  it('writes a case file the loader reads without a problem, with the demo names and the fields given', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-case-builder-'));
    try {
      await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml('http://127.0.0.1:1/api/v1'));
      await mkdir(join(root, 'cases', 'Login'), { recursive: true });
      await writeFile(join(root, 'cases', 'Login', 'a.yaml'), caseYaml({ title: 'A: "quoted" case', priority: 'High', reviewer: undefined }));
      const { config } = await loadConfig(join(root, 'tmsync.yaml'));
      const { state, problems } = await loadRepository(root, config);
      expect(problems).toEqual([]);
      expect(state.cases).toHaveLength(1);
      expect(state.cases[0]).toMatchObject({ title: 'A: "quoted" case', fields: { type: 'Functional', status: 'Draft', priority: 'High', automationType: 'Not Automated', owner: 'qa-lead@example.com' } });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
