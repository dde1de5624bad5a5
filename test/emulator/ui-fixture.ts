import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/emulator/app.js';
import { KeyRing } from '../../src/emulator/auth.js';
import * as db from '../../src/emulator/db/index.js';
import { DbContext, openDatabase } from '../../src/emulator/db/index.js';
import { Faults } from '../../src/emulator/faults.js';
import { RequestLog } from '../../src/emulator/request-log.js';
import { handlers } from '../../src/emulator/routes/index.js';
import { seedDemo } from '../../src/emulator/seed.js';

export const UI_KEY = 'ui-test-key';
/** A title no page may render as markup. */
export const HOSTILE = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "q"`;

export interface UiSeed {
  projectId: string;
  authFolder: db.FolderRow;
  loginFolder: db.FolderRow;
  group: db.StepGroupRow;
  hostileCase: db.CaseRow;
  plainCase: db.CaseRow;
  failingCase: db.CaseRow;
  plan: db.PlanRow;
  run: db.RunRow;
}

/**
 * A small project for the UI tests, written through the emulator's db module: folders
 * Authentication › Login and a hostile-named empty one, a step group, three cases (one with a hostile title and steps from the
 * group), a plan and a run with one Passed, one Failed and one case without a result.
 */
export function seedUiProject(ctx: DbContext): UiSeed {
  const { project, users, labels } = seedDemo({ db: ctx });
  const prefix = project.human_id_prefix;
  const first = (kind: db.LookupKind) => db.allLookups(ctx, kind)[0].id;
  const authFolder = db.insertFolder(ctx, project.id, 'Authentication', undefined);
  const loginFolder = db.moveFolder(ctx, db.insertFolder(ctx, project.id, 'Login', undefined), authFolder.id);
  db.insertFolder(ctx, project.id, 'Legacy <b>bold</b>', undefined);
  const group = db.insertStepGroup(ctx, project.id, prefix, { title: 'Open the sign-in page', description: 'shared steps', label_ids: [] }, [
    { step_description: 'Open /login', expected_results: 'The form shows' },
    { step_description: 'Focus the e-mail field', expected_results: 'The caret blinks' },
  ]);
  const fields = (title: string, folderId: string): db.CaseFields => ({
    title,
    description: `About ${title}`,
    template_type: 'STEP_BY_STEP',
    preconditions: 'A user exists',
    steps: '',
    expected_results: '',
    type_id: first('types'),
    status_id: first('statuses'),
    automation_type_id: first('automation_types'),
    priority_id: first('priorities'),
    owner_id: users[0].id,
    reviewer_id: users[1].id,
    folder_id: folderId,
    label_ids: [labels[0].id],
  });
  const hostileCase = db.insertCase(ctx, project.id, prefix, fields(HOSTILE, loginFolder.id), [
    { step_description: 'Open /login', expected_results: 'The form shows', step_type: 'STEP_GROUP', step_group_id: group.id },
    { step_description: 'Focus the e-mail field', expected_results: 'The caret blinks', step_type: 'STEP_GROUP', step_group_id: group.id },
    { step_description: 'Type <b>not bold</b> and submit', expected_results: 'Signed in' },
  ]);
  const plainCase = db.insertCase(ctx, project.id, prefix, fields('Valid login', loginFolder.id), [
    { step_description: 'Open /login', expected_results: 'The form shows', step_type: 'STEP_GROUP', step_group_id: group.id },
    { step_description: 'Focus the e-mail field', expected_results: 'The caret blinks', step_type: 'STEP_GROUP', step_group_id: group.id },
    { step_description: 'Sign in with a valid password', expected_results: 'The dashboard shows' },
  ]);
  const failingCase = db.insertCase(ctx, project.id, prefix, fields('Logout', authFolder.id), []);
  const plan = db.insertPlan(ctx, project.id, prefix, { title: 'Release 1', description: '', start_date: null, end_date: null, label_ids: [] });
  const run = db.insertRun(
    ctx,
    project.id,
    prefix,
    {
      title: 'Nightly',
      description: '',
      status: 'ACTIVE',
      selection_type: 'STATIC',
      filters: null,
      start_date: null,
      end_date: null,
      assignee_id: null,
      labels: [],
      environment_ids: [],
      test_plan_id: plan.id,
    },
    [hostileCase.id, plainCase.id, failingCase.id],
  );
  const status = (name: string) => db.allLookups(ctx, 'run_statuses').find((l) => l.name === name)!.id;
  db.setRunCaseStatus(ctx, run.id, hostileCase.id, status('Passed'), users[0].id, 'fine');
  db.setRunCaseStatus(ctx, run.id, failingCase.id, status('Failed'), users[0].id, 'the button <em>vanished</em>');
  return { projectId: project.id, authFolder, loginFolder, group, hostileCase, plainCase, failingCase, plan, run };
}

/** The emulator's app (API and UI) on an in-memory database, for `app.inject`; the clock is `clock.now`. */
export async function uiApp(): Promise<{ app: FastifyInstance; ctx: DbContext; seed: UiSeed; clock: { now: number } }> {
  const clock = { now: Date.UTC(2026, 0, 5, 9, 0, 0) };
  const now = () => clock.now;
  const ctx = new DbContext(openDatabase(undefined), now);
  const seed = seedUiProject(ctx);
  const app = await buildApp({
    db: ctx,
    keys: new KeyRing([UI_KEY]),
    faults: new Faults({}, now),
    log: new RequestLog(undefined),
    handlers,
    now,
    runDurationMs: 3000,
    fallbackOrigin: () => 'http://127.0.0.1:1',
  });
  return { app, ctx, seed, clock };
}
