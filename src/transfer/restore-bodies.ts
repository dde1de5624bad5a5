import { createCaseBody } from '../api/bodies.js';
import type { BodyOf } from '../api/endpoints.js';
import type { BackupTestCase, BackupTestPlan, BackupTestRun } from './backup-format.js';
import type { RestoreItemType } from './restore-journal.js';
import type { RestoreMapping } from './restore-mapping.js';

/**
 * The request bodies of a restore, from backup items and the id mapping. Pure: `newId` gives the
 * target id of a backup item restored before (it throws for one that was not).
 */

export type NewId = (type: RestoreItemType, old: string) => string;

export function caseBody(c: BackupTestCase, m: RestoreMapping, newId: NewId): BodyOf<'createTestCase'> {
  const template = c.template_type.toUpperCase();
  return createCaseBody({
    title: c.title,
    description: c.description,
    preconditions: c.preconditions,
    ...(template === 'STEPS' || template === 'TCD' ? { template_type: template } : {}),
    steps: c.steps,
    expected_results: c.expected_results,
    type_id: m.lookup('types', c.type_id),
    status_id: m.lookup('statuses', c.status_id),
    priority_id: m.lookup('priorities', c.priority_id),
    automation_type_id: m.lookup('automation_types', c.automation_type_id),
    owner_id: m.user(c.owner_id) ?? m.fallbackUser,
    reviewer_id: c.reviewer_id ? (m.user(c.reviewer_id) ?? '') : '',
    folder_id: newId('folder', c.folder_id),
    ...(c.label_ids ? { label_ids: m.labels(c.label_ids) } : {}),
    individual_steps: [...c.individual_steps]
      .sort((a, b) => a.order - b.order)
      .map((s, i) => ({
        step_description: s.description,
        expected_results: s.expected,
        order: i + 1,
        step_type: s.step_type ?? 'DEFAULT',
        step_group_id: s.step_group_id === null ? null : newId('step_group', s.step_group_id),
      })),
  });
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
