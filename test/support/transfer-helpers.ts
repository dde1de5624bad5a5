import type { BodyOf, LookupListName } from '../../src/api/index.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { TEST_DIALECT } from '../dialect.js';
import { seededEmulator, setupClient } from './emulator.js';

/** Plan and run dates in the unit the dialect under test stores them in (seconds; live: milliseconds). */
const DATE_UNIT = TEST_DIALECT === 'live' ? 1000 : 1;
import { fetchState, resolveProject, type TmsClient } from '../../src/remote/index.js';
import { createProject } from '../../src/emulator/index.js';

export const API_KEY = 'transfer-test-key';

export function emulator(options: Partial<EmulatorOptions> = {}): Promise<RunningEmulator> {
  return seededEmulator(API_KEY, options);
}

export function client(baseUrl: string, extra: Record<string, unknown> = {}): TmsClient {
  return setupClient(baseUrl, API_KEY, extra);
}

/** A fresh empty project in an emulator, by prefix. */
export function emptyProject(emu: RunningEmulator, prefix: string): void {
  createProject(emu, { prefix, name: `Project ${prefix}` });
}

/**
 * A varied project in `prefix`: deep folders, unicode and YAML-special titles and folder names,
 * TCD and STEPS cases, two step groups used by many cases, duplicate titles in one folder,
 * labels, owners and reviewers, plans (one completed) and runs (one closed) with results and
 * assignees.
 */
export async function seedVariedProject(emu: RunningEmulator, prefix: string, opts: { casesPerFolder?: number } = {}): Promise<void> {
  createProject(emu, { prefix, name: `Varied ${prefix}` });
  const c = client(emu.baseUrl);
  try {
    const project = await resolveProject(c, prefix);
    const params = { project_id: project.id };
    const users = (await c.call('listUsers')).data;
    const labels = (await c.call('listLabels')).data.labels;
    const lookup = async (name: LookupListName) => {
      const out: { id: string; name: string }[] = [];
      for await (const e of c.paginate(name)) out.push(e);
      return out;
    };
    const [types, statuses, priorities, autos, runStatuses] = await Promise.all([
      lookup('listCaseTypes'),
      lookup('listCaseStatuses'),
      lookup('listPriorities'),
      lookup('listAutomationTypes'),
      lookup('listRunStatuses'),
    ]);
    const email = (e: string) => users.find((u) => u.email === e)!.id;
    const label = (n: string) => labels.find((l) => l.name === n)!.id;

    const folderIds = new Map<string, string>();
    const folder = async (path: string[]) => {
      const key = path.join('/');
      if (folderIds.has(key)) return folderIds.get(key)!;
      const parent = path.length > 1 ? await folder(path.slice(0, -1)) : null;
      const f = (await c.call('createFolder', { params, body: { name: path[path.length - 1] } })).data.folder;
      if (parent) await c.call('moveFolder', { params: { ...params, folder_id: f.id }, body: { parent_folder_id: parent } });
      folderIds.set(key, f.id);
      return f.id;
    };
    const paths = [
      ['Authentication'],
      ['Authentication', 'Deep', 'Deeper', 'Deepest'],
      ['Checkout', 'Payments'],
      ['Checkout', 'Réseau: Wi-Fi?'],
      ['Checkout', 'Zahlungen äöü 日本'],
      ['yes'],
      ['Empty folder'],
    ];
    for (const p of paths) await folder(p);

    const group = async (title: string, steps: [string, string][], labelNames: string[] = []) =>
      (
        await c.call('createStepGroup', {
          params,
          body: {
            title,
            description: `${title} (shared)`,
            label_ids: labelNames.map(label),
            steps: steps.map(([a, e], i) => ({ step_description: a, expected_result: e, order: i + 1 })),
          },
        })
      ).data.step_group;
    const login = await group('Log in as admin', [
      ['Open /login', 'The form shows'],
      ['Sign in as admin', 'The dashboard shows'],
    ], ['auth']);
    const cart = await group('Fill the cart', [['Add two items', 'The cart shows 2']]);
    const groupSteps = (g: typeof login) =>
      (g.steps ?? []).map((s) => ({ step_description: s.step_description, expected_results: s.expected_results, step_type: 'DEFAULT', step_group_id: g.id }));

    const titles = ['Valid login', 'yes', 'null', '- starts with a dash', 'key: value', '#hash and "quotes"', "it's", '123', 'Ünïcödé 日本語 テスト', 'Duplicate title', 'Duplicate title'];
    const caseIds: string[] = [];
    let n = 0;
    const per = opts.casesPerFolder ?? titles.length;
    for (const p of paths.slice(0, 6)) {
      const folderId = folderIds.get(p.join('/'))!;
      for (let i = 0; i < per; i++) {
        n += 1;
        const title = titles[i % titles.length];
        const tcd = n % 4 === 0;
        const steps = [
          ...(n % 3 === 0 ? groupSteps(login) : []),
          { step_description: `Step ${n}: do it`, expected_results: n % 2 ? `Result ${n}\nsecond line` : '', step_type: 'DEFAULT', step_group_id: null },
          ...(n % 5 === 0 ? [...groupSteps(cart), ...groupSteps(cart)] : []),
        ].map((s, k) => ({ ...s, order: k + 1 }));
        const body = {
          title,
          description: n % 2 ? `Description of case ${n}.\nWith a second line: and a colon.` : '',
          preconditions: n % 3 ? 'Logged out' : '',
          template_type: tcd ? ('TCD' as const) : ('STEPS' as const),
          steps: tcd ? `1. Open it\n2. Check "${title}"` : '',
          expected_results: tcd ? 'Everything works' : '',
          type_id: types[n % types.length].id,
          status_id: statuses[n % statuses.length].id,
          priority_id: priorities[n % priorities.length].id,
          automation_type_id: autos[n % autos.length].id,
          owner_id: users[n % users.length].id,
          reviewer_id: n % 2 ? email('ben@example.com') : '',
          folder_id: folderId,
          label_ids: n % 2 ? [label('smoke'), label('auth')] : [],
          individual_steps: tcd ? [] : steps,
        };
        caseIds.push((await c.call('createTestCase', { params, body })).data.test_case.id);
      }
    }

    const plan1 = (await c.call('createTestPlan', { params, body: { title: 'Release 1.0', description: 'First release', start_date: 1_700_000_000 * DATE_UNIT, end_date: 1_700_086_400 * DATE_UNIT } })).data.test_plan;
    const plan2 = (await c.call('createTestPlan', { params, body: { title: 'Release 0.9', description: '' } })).data.test_plan;
    const run = async (title: string, planId: string | null, ids: string[]) =>
      (
        await c.call('createTestRun', {
          params,
          body: {
            title,
            description: `${title} run`,
            selection_type: 'STATIC',
            static_selection_filters: [{ field: 'id', operator: 'IN', values: ids }],
            assignee_id: email('ana@example.com'),
            label_names: ['smoke'],
            test_plan_id: planId,
          },
        })
      ).data.test_run;
    const r1 = await run('Smoke on 1.0', plan1.id, caseIds.slice(0, 8));
    await c.call('updateRunCases', {
      params: { ...params, test_run_id: r1.id },
      body: {
        test_run_cases: caseIds.slice(0, 6).map((id, i) => ({
          test_case_id: id,
          test_run_status_id: runStatuses[i % runStatuses.length].id,
          user_id: users[i % users.length].id,
        })),
      },
    });
    await c.call('assignRunCaseUser', { params: { ...params, test_run_id: r1.id }, body: { test_case_id: caseIds[7], user_id: email('ben@example.com') } });
    const r2 = await run('Regression 0.9', plan2.id, caseIds.slice(3, 12));
    await c.call('updateRunCases', {
      params: { ...params, test_run_id: r2.id },
      body: { test_run_cases: caseIds.slice(3, 5).map((id) => ({ test_case_id: id, test_run_status_id: runStatuses[1].id })) },
    });
    await c.call('updateTestRun', { params: { ...params, test_run_id: r2.id }, body: { status: 'CLOSED' } });
    await run('Ad-hoc', null, caseIds.slice(-3));
    await c.call('completeTestPlan', { params: { ...params, test_plan_id: plan2.id } });
  } finally {
    await c.close();
  }
}

const bySerial = <T>(a: T, b: T) => {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * A project with every id and timestamp replaced by what it stands for (names, emails, titles,
 * folder paths), sorted, so two projects compare with a deep equality.
 */
export async function projectSnapshot(baseUrl: string, prefix: string, what: { runs?: boolean } = {}): Promise<unknown> {
  const c = client(baseUrl);
  try {
    const project = await resolveProject(c, prefix);
    const s = await fetchState(c, project.id);
    const folders = new Map(s.folders.map((f) => [f.id, f]));
    const pathOf = (id: string): string => {
      const f = folders.get(id);
      if (!f) return `?${id}`;
      return f.parentId ? `${pathOf(f.parentId)}/${f.name}` : f.name;
    };
    const lookup = (list: { id: string; name: string }[], id: string) => list.find((e) => e.id === id)?.name ?? (id ? `?${id}` : '');
    const user = (id: string | null | undefined) => (id ? (s.users.find((u) => u.id === id)?.email ?? `?${id}`) : '');
    const label = (id: string) => s.labels.find((l) => l.id === id)?.name ?? `?${id}`;
    const groups = new Map(s.stepGroups.map((g) => [g.id, g]));
    const caseKey = new Map(s.cases.map((x) => [x.id, `${pathOf(x.folderId)} › ${x.title}`]));
    const snapshot: Record<string, unknown> = {
      folders: s.folders.map((f) => ({ path: pathOf(f.id), order: f.order })).sort(bySerial),
      stepGroups: s.stepGroups
        .map((g) => ({
          title: g.title,
          description: g.description,
          labels: (g.labelIds ?? []).map(label).sort(),
          steps: g.steps.map((st) => [st.order, st.description, st.expected]),
        }))
        .sort(bySerial),
      cases: s.cases
        .map((x) => ({
          folder: pathOf(x.folderId),
          title: x.title,
          description: x.description,
          preconditions: x.preconditions,
          template: x.templateType,
          steps: x.steps,
          expectedResults: x.expectedResults,
          type: lookup(s.lookups.types, x.typeId),
          status: lookup(s.lookups.statuses, x.statusId),
          priority: lookup(s.lookups.priorities, x.priorityId),
          automation: lookup(s.lookups.automationTypes, x.automationTypeId),
          owner: user(x.ownerId),
          reviewer: user(x.reviewerId),
          labels: (x.labelIds ?? []).map(label).sort(),
          individualSteps: x.individualSteps.map((st) => [
            st.order,
            st.description,
            st.expected,
            st.stepType ?? '',
            st.stepGroupId ? (groups.get(st.stepGroupId)?.title ?? `?${st.stepGroupId}`) : null,
          ]),
        }))
        .sort(bySerial),
    };
    if (what.runs !== false) {
      const params = { project_id: project.id };
      const plans: unknown[] = [];
      const planTitle = new Map<string, string>();
      for await (const p of c.paginate('listTestPlans', { params })) {
        planTitle.set(p.id, p.title);
        plans.push({ title: p.title, description: p.description ?? '', status: p.status, start: p.start_date ?? null, end: p.end_date ?? null });
      }
      const runs: unknown[] = [];
      for await (const r of c.paginate('listTestRuns', { params })) {
        const rc = (await c.call('listRunCases', { params: { ...params, test_run_id: r.id } })).data.test_cases;
        runs.push({
          title: r.title,
          description: r.description ?? '',
          status: r.status,
          plan: r.test_plan_id ? planTitle.get(r.test_plan_id) : null,
          assignee: user(r.assignee_id),
          labels: r.labels,
          cases: rc.map((x) => [caseKey.get(x.id) ?? `?${x.id}`, x.status, user(x.assignee_id)]).sort(bySerial),
        });
      }
      snapshot.plans = plans.sort(bySerial);
      snapshot.runs = runs.sort(bySerial);
    }
    return snapshot;
  } finally {
    await c.close();
  }
}

type CaseBody = BodyOf<'updateTestCase'>;

/**
 * An edit as a person makes it in the service's web UI: the whole case as the service holds it is
 * sent back (PUT) with one field changed.
 */
export async function editInUi(baseUrl: string, prefix: string, humanId: string, change: Partial<CaseBody>): Promise<void> {
  const c = client(baseUrl);
  try {
    const project = await resolveProject(c, prefix);
    const params = { project_id: project.id };
    let found: Record<string, unknown> | undefined;
    for await (const tc of c.paginate('listTestCases', { params })) if (tc.human_id === humanId) found = tc;
    if (!found) throw new Error(`no case ${humanId}`);
    const t = found as unknown as {
      title: string;
      description?: string | null;
      template_type?: string | null;
      preconditions?: string | null;
      steps?: string | null;
      expected_results?: string | null;
      type_id?: string | null;
      status_id?: string | null;
      automation_type_id?: string | null;
      priority_id?: string | null;
      owner_id?: string | null;
      reviewer_id?: string | null;
      folder_id?: string | null;
      label_ids?: string[];
      individual_steps?: { step_description?: string | null; expected_results?: string | null; order: number; step_group_id?: string | null }[];
    };
    const id = (v: string | null | undefined) => v ?? undefined;
    const whole: CaseBody = {
      title: t.title,
      description: t.description ?? null,
      template_type: t.template_type === 'TCD' ? 'TCD' : 'STEPS',
      preconditions: t.preconditions ?? null,
      steps: t.steps ?? null,
      expected_results: t.expected_results ?? null,
      type_id: id(t.type_id),
      status_id: id(t.status_id),
      automation_type_id: id(t.automation_type_id),
      priority_id: id(t.priority_id),
      owner_id: id(t.owner_id),
      reviewer_id: t.reviewer_id ?? null,
      folder_id: id(t.folder_id),
      label_ids: t.label_ids ?? [],
      individual_steps: (t.individual_steps ?? []).map((s) => ({
        step_description: s.step_description ?? null,
        expected_results: s.expected_results ?? null,
        order: s.order,
        step_group_id: s.step_group_id ?? null,
      })),
    };
    await c.call('updateTestCase', { params: { ...params, test_case_id: humanId }, body: { ...whole, ...change } });
  } finally {
    await c.close();
  }
}
