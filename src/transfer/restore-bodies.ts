import { createCaseBody, type CaseWireBody } from '../api/bodies.js';
import type { BodyOf } from '../api/endpoints.js';
import { CASE_FIELDS_BY_KIND, fieldOf, setField, type CaseField } from '../fields.js';
import type { BackupStep, BackupTestCase, BackupTestPlan, BackupTestRun } from './backup-format.js';
import type { RestoreItemType } from './restore-journal.js';
import type { RestoreMapping } from './restore-mapping.js';

/**
 * The request bodies of a restore, from backup items and the id mapping. Pure: `newId` gives the
 * target id of a backup item restored before (it throws for one that was not).
 */

export type NewId = (type: RestoreItemType, old: string) => string;

const CASE_TEMPLATES = new Set(['STEPS', 'TCD']);

/** A case create body: every field of the table, its references mapped to the target's ids. */
export function caseBody(c: BackupTestCase, m: RestoreMapping, newId: NewId): BodyOf<'createTestCase'> {
  const out: CaseWireBody = { title: c.title, folder_id: newId('folder', c.folder_id) };
  const set = (f: CaseField, value: unknown) => setField(out, f, 'wire', value);
  for (const f of CASE_FIELDS_BY_KIND) {
    const value = fieldOf<unknown>(c, f, 'wire');
    switch (f.kind) {
      case 'text':
        set(f, value);
        break;
      case 'template': {
        const template = (value as string).toUpperCase();
        if (CASE_TEMPLATES.has(template)) set(f, template);
        break;
      }
      case 'lookup':
        set(f, m.lookup(f.list!, value as string));
        break;
      case 'user':
        set(f, f.required ? (m.user(value as string) ?? m.fallbackUser) : value ? (m.user(value as string) ?? '') : '');
        break;
      case 'labels':
        if (value) set(f, m.labels(value as string[]));
        break;
      case 'steps':
        set(f, [...(value as BackupStep[])]
          .sort((a, b) => a.order - b.order)
          .map((s, i) => ({
            step_description: s.description,
            expected_results: s.expected,
            order: i + 1,
            step_type: s.step_type ?? 'DEFAULT',
            step_group_id: s.step_group_id === null ? null : newId('step_group', s.step_group_id),
          })));
        break;
    }
  }
  return createCaseBody(out);
}

export function planBody(p: BackupTestPlan): BodyOf<'createTestPlan'> {
  return { title: p.title, description: p.description, start_date: p.start_date, end_date: p.end_date };
}

/** A run is recreated STATIC with exactly the cases it held, whatever its selection was. */
export function runBody(r: BackupTestRun, m: RestoreMapping, newId: NewId, keepEnvironments: boolean): BodyOf<'createTestRun'> {
  return {
    title: r.title,
    description: r.description,
    status: 'ACTIVE',
    selection_type: 'STATIC',
    static_selection_filters: [{ field: 'id', operator: 'IN', values: r.cases.map((rc) => newId('case', rc.case_id)) }],
    start_date: r.start_date,
    end_date: r.end_date,
    assignee_id: r.assignee_id ? (m.user(r.assignee_id) ?? null) : null,
    label_names: r.label_names,
    ...(keepEnvironments ? { environment_ids: r.environment_ids } : {}),
    test_plan_id: r.test_plan_id === null ? null : newId('plan', r.test_plan_id),
  };
}

export interface RunResults {
  /** `updateRunCases` bodies */
  batches: { test_case_id: string; test_run_status_id: string; user_id?: string }[][];
  /** untested cases with an assignee: `assign_user` bodies (the update needs a status) */
  assignOnly: { test_case_id: string; user_id: string }[];
}

export function runResults(r: BackupTestRun, m: RestoreMapping, newId: NewId, batchSize: number): RunResults {
  const rows: RunResults['batches'][number] = [];
  const assignOnly: RunResults['assignOnly'] = [];
  for (const rc of r.cases) {
    const caseId = newId('case', rc.case_id);
    const status = m.runStatus(rc.status_id, rc.status);
    const user = rc.assignee_id ? m.user(rc.assignee_id) : undefined;
    if (status !== undefined) rows.push({ test_case_id: caseId, test_run_status_id: status, ...(user ? { user_id: user } : {}) });
    else if (user !== undefined) assignOnly.push({ test_case_id: caseId, user_id: user });
  }
  const batches: RunResults['batches'] = [];
  for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
  return { batches, assignOnly };
}
