import * as db from '../db/index.js';
import type { DbContext, RunRow } from '../db/index.js';
import { multipartParts, ok, projectOf, type HandlerTable } from '../http.js';
import { parseJunit, type JunitOutcome } from '../service-junit.js';
import { ServiceError, notFound } from '../service-error.js';
import { runOf } from './test-runs.js';

/**
 * JUnit import into a run. The import is recorded and processed at once; the POST answers
 * `pending` (the live service is asynchronous) and the status call tells `completed` or `failed`.
 * A `<testcase>` matches a case by its `test_case` property or a human id (`DEMO-12`) in its name
 * or classname; matched cases not yet in the run are added to it.
 */
const OUTCOME_STATUS: Record<JunitOutcome, string> = { passed: 'Passed', failed: 'Failed', skipped: 'Skipped' };

function applyReport(ctx: DbContext, run: RunRow, prefix: string, xml: string) {
  const cases = parseJunit(xml);
  if (!cases) return { status: 'failed', summary: { error: 'the junit_xml part is not well-formed XML', matched: 0, unmatched: [] as string[] } };
  const statuses = new Map(db.allLookups(ctx, 'run_statuses').map((l) => [l.name, l.id]));
  const humanRe = new RegExp(`\\b${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+\\b`);
  const unmatched: string[] = [];
  let matched = 0;
  ctx.tx(() => {
    const inRun = new Set(db.runCases(ctx, run.id).map((r) => r.case_id));
    for (const tc of cases) {
      const ref = tc.testCase || humanRe.exec(tc.name)?.[0] || humanRe.exec(tc.classname)?.[0];
      const found = ref ? db.findCase(ctx, run.project_id, ref) : undefined;
      const statusId = statuses.get(OUTCOME_STATUS[tc.outcome]);
      if (!found || !statusId) {
        unmatched.push(tc.name);
        continue;
      }
      if (!inRun.has(found.id)) {
        db.setRunCases(ctx, run.id, [...inRun, found.id], run.assignee_id);
        inRun.add(found.id);
      }
      db.setRunCaseStatus(ctx, run.id, found.id, statusId, undefined, undefined);
      matched++;
    }
  });
  return { status: 'completed', summary: { total: cases.length, matched, unmatched } };
}

export const junitRoutes = {
  async importJunit(c) {
    const project = projectOf(c);
    const run = runOf(c);
    if (!c.request.isMultipart()) {
      throw new ServiceError(422, 'Invalid request body: send multipart/form-data with a file part named "junit_xml"', [
        { field: 'junit_xml', message: 'missing' },
      ]);
    }
    let xml: string | undefined;
    for await (const part of multipartParts(c.request)) {
      if (part.type === 'field' && part.valueTruncated) {
        throw new ServiceError(413, 'Request body too large: the limit is 1048576 bytes (1 MiB) per part');
      }
      const text = part.type === 'file' ? (await part.toBuffer()).toString('utf8') : String(part.value);
      if (part.fieldname === 'junit_xml') xml = text;
    }
    if (xml === undefined) {
      throw new ServiceError(422, 'Invalid request body: junit_xml: missing', [{ field: 'junit_xml', message: 'missing' }]);
    }
    const { status, summary } = applyReport(c.db, run, project.human_id_prefix, xml);
    const row = db.insertImport(c.db, project.id, run.id, status, summary);
    // test_run_id is an emulator extension; the live answer is `{id, status}`
    return ok('import', { id: row.id, status: 'pending', ...(c.dialect === 'live' ? {} : { test_run_id: run.id }) });
  },
  getJunitImport(c) {
    const project = projectOf(c);
    const row = db.findImport(c.db, project.id, c.params.import_id);
    if (!row) throw notFound('JUnit import', c.params.import_id);
    // the run and the counts are emulator extensions; the live answer's `data.import` is `{id, status}`
    if (c.dialect === 'live') return ok('import', { id: row.id, status: row.status });
    return ok('import', { id: row.id, status: row.status, test_run_id: row.run_id, ...(JSON.parse(row.summary) as object) });
  },
} satisfies Partial<HandlerTable>;
