import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findPlanAnywhere } from '../../src/emulator/db/index.js';
import { folder, projectId, refs, start, testCase, type Api } from './helpers.js';

const MS = /^\d{13}$/;

describe('the live dialect answers as the live service does', () => {
  let emu: RunningEmulator;
  let http: Api;
  let r: Awaited<ReturnType<typeof refs>>;
  let folderId: string;
  let D: string;

  beforeAll(async () => {
    ({ emu, http } = await start({ dialect: 'live' }));
    D = `/projects/${await projectId(http)}`;
    r = await refs(http);
    folderId = await folder(http, 'Live');
  });
  afterAll(async () => {
    await emu.close();
  });

  it('sends timestamps in milliseconds and a null parent for a root folder', async () => {
    const project = (await http.get(`${D}`)).body.data.project;
    expect(String(project.created_at)).toMatch(MS);
    const folders = (await http.get(`${D}/folders`)).body.data.folders as { id: string; parent_folder_id: unknown }[];
    expect(folders.find((f) => f.id === folderId)!.parent_folder_id).toBeNull();
  });

  it('keeps plan dates as sent (milliseconds) and completes with a millisecond completed_at', async () => {
    const plan = (await http.post(`${D}/test_plans`, { title: 'Live plan', start_date: 1_795_132_800_000 })).body.data.test_plan;
    expect(plan.start_date).toBe(1_795_132_800_000);
    expect(String(plan.updated_at)).toMatch(MS);
    const done = (await http.post(`${D}/test_plans/${plan.id}/complete`)).body.data.test_plan;
    expect(String(done.completed_at)).toMatch(MS);
  });

  it('pages with base64 cursors followed by ?cursor=, null on the last page', async () => {
    for (const name of ['P1', 'P2', 'P3']) await http.post(`${D}/test_plans`, { title: `Paged ${name}` });
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const q: string = next ? `page_size=2&cursor=${encodeURIComponent(next)}` : 'page_size=2';
      const page = (await http.get(`${D}/test_plans?${q}`)).body;
      seen.push(...page.data.test_plans.map((p: { title: string }) => p.title));
      next = page.page_info.next;
      if (pages === 0) {
        expect(page.page_info.prev).toBeNull();
        const decoded = JSON.parse(Buffer.from(next!, 'base64').toString('utf8'));
        // as the live service's: the sort key of the page's last item, written as a ULID is
        expect(decoded).toEqual([{ field: 'test_plans.tsid', value: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), direction: 'ASC' }]);
      }
      pages++;
    } while (next);
    expect(pages).toBe(Math.ceil(seen.length / 2));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['Paged P1', 'Paged P2', 'Paged P3']));
  });

  describe('cursors hold the sort key of an item, not a position', () => {
    /** One page: the titles, and page_info's cursors. */
    const read = async (path: string, cursor?: string | null) => {
      const sep = path.includes('?') ? '&' : '?';
      const body = (await http.get(`${path}${sep}page_size=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      const key = Object.keys(body.data)[0];
      return { titles: (body.data[key] as { title: string }[]).map((x) => x.title), next: body.page_info.next as string | null, prev: body.page_info.prev as string | null, total: body.page_info.total_count as number };
    };
    // every way a list is paged: the kept order of a folder's cases, cases found by search (SQL),
    // plans (SQL), and a list with a `__` filter (read whole, then paged)
    const lists = [
      { name: 'a folder of cases', make: 'case', path: (tag: string, f: string) => `${D}/test_cases?folder_id=${f}` },
      { name: 'cases found by search', make: 'case', path: (tag: string) => `${D}/test_cases?search=${tag}` },
      { name: 'plans with a __ filter', make: 'plan', path: (tag: string) => `${D}/test_plans?title__CONTAINS=${tag}` },
    ] as const;
    for (const list of lists) {
      it(`${list.name}: deleting an item served and one not yet served between two page reads neither skips nor repeats one; a cursor whose item was deleted goes on`, async () => {
        const tag = `K${list.make}${list.name.length}x`;
        const f = await folder(http, `Keyset ${list.name}`);
        const ids: string[] = [];
        for (let i = 1; i <= 9; i++) {
          const title = `${tag} ${i}`;
          ids.push(list.make === 'case' ? (await testCase(http, r, f, { title })).id : (await http.post(`${D}/test_plans`, { title })).body.data.test_plan.id);
        }
        const del = (i: number) => http.del(`${D}/${list.make === 'case' ? 'test_cases' : 'test_plans'}/${ids[i - 1]}`);
        const path = list.path(tag, f);
        const first = await read(path);
        expect(first.titles).toEqual([1, 2, 3].map((i) => `${tag} ${i}`));
        await del(2);
        await del(5);
        const second = await read(path, first.next);
        expect(second.titles).toEqual([4, 6, 7].map((i) => `${tag} ${i}`));
        expect(second.total).toBe(7);
        // the page's last item deleted before its cursor is followed: the walk goes on from its place
        await del(7);
        const third = await read(path, second.next);
        expect(third.titles).toEqual([8, 9].map((i) => `${tag} ${i}`));
        expect(third.next).toBeNull();
        // prev: the items before the page's first
        const back = await read(path, third.prev);
        expect(back.titles).toEqual([3, 4, 6].map((i) => `${tag} ${i}`));
        const start = await read(path, back.prev);
        expect(start.titles).toEqual([`${tag} 1`]);
        expect(start.prev).toBeNull();
        expect((await read(path, start.next)).titles).toEqual([3, 4, 6].map((i) => `${tag} ${i}`));
      });
    }
    it('refuses a cursor it did not send (a position, as this emulator once sent) with 400 naming the cursor', async () => {
      const old = Buffer.from(JSON.stringify([{ field: 'test_cases.tsid', value: '3', direction: 'ASC' }])).toString('base64');
      const res = await http.get(`${D}/test_cases?page_size=3&cursor=${encodeURIComponent(old)}`);
      expect(res.status).toBe(400);
      expect(res.body.errors.details).toContain('cursor');
    });
  });

  it('answers a validation failure with 400 and a string errors.details', async () => {
    const res = await http.post(`${D}/test_plans`, { title: 7 });
    expect(res.status).toBe(400);
    expect(typeof res.body.errors.details).toBe('string');
    expect(res.body.errors.details).toContain('title');
  });

  it('answers a case create without its ids with the live text, 400 "Invalid ID format: "', async () => {
    const res = await http.post(`${D}/test_cases`, { title: 'No ids' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Invalid ID format: ', errors: { code: 400, message: 'Invalid ID format: ', details: 'Invalid ID format: ' } });
  });

  it('answers an unknown route with the flat {"code":404,"message":"Not Found"}', async () => {
    const res = await http.get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, message: 'Not Found' });
  });

  it('sends x-request-id and the x-tms-api-* headers on every answer, and identity_user_uuid on users', async () => {
    const a = await http.get('/users');
    const b = await http.get('/users');
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(a.headers.get('x-tms-api-limit')).toMatch(/^\d+$/);
    expect(a.headers.get('x-tms-api-reset')).toBe('-1');
    expect(a.body.data[0].identity_user_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await http.get('/no/such/route')).headers.get('x-request-id')).toBeTruthy();
  });

  it('carries labels as objects instead of label_ids on case GETs and lists', async () => {
    const label = r.labels[0];
    const created = await testCase(http, r, folderId, { title: 'Labelled', label_ids: [label.id] });
    const got = (await http.get(`${D}/test_cases/${created.id}`)).body.data.test_case;
    expect(got.label_ids).toBeUndefined();
    expect(got.labels).toEqual([{ id: label.id, name: label.name, createdAt: expect.any(Number), updatedAt: expect.any(Number) }]);
    expect(String(got.labels[0].createdAt)).toMatch(MS);
    const listed = (await http.get(`${D}/test_cases?page_size=100`)).body.data.test_cases.find((c: { id: string }) => c.id === created.id);
    expect(listed.label_ids).toBeUndefined();
    expect(listed.labels.map((l: { name: string }) => l.name)).toEqual([label.name]);
  });

  it('takes run-case results only as multipart and lists run cases as test_run_cases with an embedded test_case', async () => {
    const c = await testCase(http, r, folderId, { title: 'Run me' });
    const run = (await http.post(`${D}/test_runs`, { title: 'Live run', static_selection_filters: [{ field: 'id', operator: 'IN', values: [c.id] }] })).body.data.test_run;
    const statuses = (await http.get('/test_runs/statuses')).body.data.statuses as { id: string; name: string }[];
    const passed = statuses.find((s) => s.name === 'Passed')!;
    const rows = { test_run_cases: [{ test_case_id: c.id, test_run_status_id: passed.id }] };
    const json = await http.put(`${D}/test_runs/${run.id}/test_cases`, rows);
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('data', JSON.stringify(rows));
    const multipart = await http.call('PUT', `${D}/test_runs/${run.id}/test_cases`, undefined, { raw: form });
    expect(multipart.status).toBe(200);
    const list = (await http.get(`${D}/test_runs/${run.id}/test_cases`)).body.data;
    expect(list.test_cases).toBeUndefined();
    expect(list.test_run_cases).toEqual([
      { test_case_id: c.id, status_id: passed.id, status: 'Passed', assignee_id: null, test_case: { id: c.id, human_id: c.human_id, title: 'Run me', folder_id: folderId } },
    ]);
  });

  it('selects everything with an unsupported DYNAMIC operator, shows null exclusions and refuses a PUT echoing them', async () => {
    const total = (await http.get(`${D}/test_cases?page_size=1`)).body.page_info.total_count;
    const run = (
      await http.post(`${D}/test_runs`, { title: 'Dynamic', selection_type: 'DYNAMIC', dynamic_selection_filters: [{ field: 'folder_id', operator: 'EQUALS', values: ['nowhere'] }] })
    ).body.data.test_run;
    expect(run.test_cases_count).toBe(total);
    const got = (await http.get(`${D}/test_runs/${run.id}`)).body.data.test_run;
    expect(got.dynamic_selection_excluded_test_case_ids).toBeNull();
    const echoed = await http.put(`${D}/test_runs/${run.id}`, { title: got.title, dynamic_selection_excluded_test_case_ids: null });
    expect(echoed.status).toBe(400);
    expect(echoed.body.errors.details).toContain('dynamic_selection_excluded_test_case_ids');
    expect((await http.put(`${D}/test_runs/${run.id}`, { status: 'CLOSED' })).status).toBe(200);
  });

  it('sends no web_url (an emulator extension: the live service links to no UI page)', async () => {
    const c = await testCase(http, r, folderId, { title: 'No link' });
    const run = (await http.post(`${D}/test_runs`, { title: 'No link', static_selection_filters: [{ field: 'id', operator: 'IN', values: [c.id] }] })).body.data.test_run;
    const plan = (await http.post(`${D}/test_plans`, { title: 'No link' })).body.data.test_plan;
    const answers = [
      c,
      run,
      plan,
      (await http.get(`${D}`)).body.data.project,
      (await http.get(`${D}/test_cases/${c.id}`)).body.data.test_case,
      (await http.get(`${D}/test_runs/${run.id}`)).body.data.test_run,
      (await http.get(`${D}/test_plans/${plan.id}`)).body.data.test_plan,
      ...(await http.get('/projects')).body.data.projects,
      ...(await http.get(`${D}/test_runs?page_size=100`)).body.data.test_runs,
    ];
    for (const answer of answers) expect(answer).not.toHaveProperty('web_url');
  });

  it('ignores unknown query parameters, filters and operators, and applies the known filters', async () => {
    const all = (await http.get('/projects?page_size=100')).body.data.projects.length;
    expect((await http.get('/projects?foo=bar&colour__EQ=red&name__LIKE=x')).body.data.projects).toHaveLength(all);
    const hit = (await http.get('/projects?name__CONTAINS=dem')).body.data.projects;
    expect(hit.map((p: { name: string }) => p.name)).toEqual(['Demo']);
  });
});

describe('the live dialect refuses over the rate limit as the live service does', () => {
  it('answers 500 {"message":"rate limit exceeded"} without Retry-After unless --rate-limit-style 429 is given', async () => {
    const { emu, http } = await start({ dialect: 'live', rateLimit: 1 });
    const styled = await start({ dialect: 'live', rateLimit: 1, rateLimitStyle: '429' });
    try {
      await http.get('/users');
      const refused = await http.get('/users');
      expect(refused.status).toBe(500);
      expect(refused.body).toEqual({ message: 'rate limit exceeded' });
      expect(refused.headers.get('retry-after')).toBeNull();
      await styled.http.get('/users');
      expect((await styled.http.get('/users')).status).toBe(429);
    } finally {
      await emu.close();
      await styled.emu.close();
    }
  });
});

describe('both dialects accept what real clients send', () => {
  for (const dialect of ['document', 'live'] as const) {
    describe(`${dialect} dialect`, () => {
      let emu: RunningEmulator;
      let http: Api;
      let r: Awaited<ReturnType<typeof refs>>;
      let folderId: string;
      let D: string;

      beforeAll(async () => {
        ({ emu, http } = await start({ dialect }));
        D = `/projects/${await projectId(http)}`;
        r = await refs(http);
        folderId = await folder(http, 'Clients');
      });
      afterAll(async () => {
        await emu.close();
      });

      it(
        dialect === 'document'
          ? 'starts a run from executionId as a number, a numeric string, a uuid or a human id, with a numeric or text buildNo'
          : 'starts a run from executionId as a number only, with a numeric or text buildNo',
        async () => {
        const plan = (await http.post(`${D}/test_plans`, { title: 'Nightly' })).body.data.test_plan;
        // the execution id is an emulator extension on plans: the live dialect shows it nowhere
        const executionId = findPlanAnywhere(emu.db, plan.id)!.execution_id;
        const got = (await http.get(`${D}/test_plans/${plan.id}`)).body.data.test_plan;
        if (dialect === 'document') expect(got.execution_id).toBe(executionId);
        else expect(got).not.toHaveProperty('execution_id');
        const refsToTry = dialect === 'document' ? [executionId, String(executionId), plan.id, plan.human_id] : [executionId, executionId];
        for (const [i, ref] of refsToTry.entries()) {
          const buildNo = i % 2 === 0 ? 202611231018 + i : `b-${i}`;
          const res = await http.post('/api/v1/execution_results', { executionId: ref, environmentId: 1, buildNo }, { root: 'app' });
          expect(res.status).toBe(200);
          const status = (await http.get(`/api/v1/execution_results/${res.body.id}`, { root: 'app' })).body;
          expect(status.buildNo).toBe(String(buildNo));
          const runs = (await http.get(`${D}/test_plans/${plan.id}/test_runs?page_size=100`)).body.data.test_runs;
          expect(runs).toHaveLength(i + 1);
        }
        if (dialect === 'live') {
          for (const ref of [String(executionId), plan.id, plan.human_id]) {
            const refused = await http.post('/api/v1/execution_results', { executionId: ref }, { root: 'app' });
            expect(refused.status).toBe(400);
            expect(refused.body.errors.details).toContain('executionId');
          }
        }
        const unknown = await http.post('/api/v1/execution_results', { executionId: 999_999 }, { root: 'app' });
        expect(unknown.status).toBe(dialect === 'live' ? 400 : 422);
        expect(unknown.text).toContain('executionId');
        },
      );

      it('honours dynamic_selection_excluded_test_case_ids on a DYNAMIC run, on create and on update', async () => {
        const a = await testCase(http, r, folderId, { title: 'Keep me' });
        const b = await testCase(http, r, folderId, { title: 'Exclude me' });
        const filters = [{ field: 'folder_id', operator: 'IN', values: [folderId] }];
        const run = (
          await http.post(`${D}/test_runs`, { title: 'Dyn', selection_type: 'DYNAMIC', dynamic_selection_filters: filters, dynamic_selection_excluded_test_case_ids: [dialect === 'document' ? b.human_id : b.id] })
        ).body.data.test_run;
        const ids = async () => {
          const data = (await http.get(`${D}/test_runs/${run.id}/test_cases`)).body.data;
          return (data.test_cases ?? data.test_run_cases).map((x: { id?: string; test_case?: { id: string } }) => x.test_case?.id ?? x.id).sort();
        };
        expect(await ids()).toEqual([a.id]);
        expect((await http.put(`${D}/test_runs/${run.id}`, { dynamic_selection_excluded_test_case_ids: [a.id] })).status).toBe(200);
        expect(await ids()).toEqual([b.id]);
        // a sparse update of something else keeps the exclusions
        expect((await http.put(`${D}/test_runs/${run.id}`, { title: 'Dyn renamed' })).status).toBe(200);
        expect(await ids()).toEqual([b.id]);
      });

      it('filters every list with the __EQ, __NEQ, __CONTAINS and __IN suffixes on its text fields', async () => {
        for (const t of ['Alpha run', 'Beta run', 'Gamma check']) await http.post(`${D}/test_runs`, { title: t });
        const titles = async (q: string) =>
          (await http.get(`${D}/test_runs?page_size=100&${q}`)).body.data.test_runs.map((x: { title: string }) => x.title).sort();
        expect(await titles('title__CONTAINS=RUN')).toEqual(['Alpha run', 'Beta run']);
        expect(await titles('title__EQ=Beta%20run')).toEqual(['Beta run']);
        expect(await titles('title__IN=Alpha%20run,Gamma%20check')).toEqual(['Alpha run', 'Gamma check']);
        expect(await titles('title__NEQ=Beta%20run')).not.toContain('Beta run');
        const cases = (await http.get(`${D}/test_cases?title__CONTAINS=keep`)).body;
        expect(cases.data.test_cases.map((c: { title: string }) => c.title)).toEqual(['Keep me']);
        expect(cases.page_info.total_count).toBe(1);
        const lookups = (await http.get('/test_cases/priorities?name__EQ=Critical')).body.data.priorities;
        expect(lookups.map((l: { name: string }) => l.name)).toEqual(['Critical']);
        const labels = (await http.get('/labels?name__IN=smoke,auth')).body.data.labels.map((l: { name: string }) => l.name).sort();
        expect(labels).toEqual(['auth', 'smoke']);
      });

      it(dialect === 'document' ? 'refuses an unknown query parameter, filter field or operator with a 422 naming it' : 'ignores an unknown query parameter, filter field or operator', async () => {
        for (const q of ['foo=bar', 'name__CONTAINS=x&colour__EQ=red', 'name__LIKE=x', 'cursor=abc']) {
          const res = await http.get(`/projects?${q}`);
          if (dialect === 'document') {
            expect(res.status).toBe(422);
            const named = q.split('&').pop()!.split('=')[0];
            expect(res.body.errors.details.map((d: { field: string }) => d.field)).toContain(named);
          } else if (!q.startsWith('cursor')) {
            expect(res.status).toBe(200);
          }
        }
      });
    });
  }
});

describe('the second fidelity pass (issue 31): names, texts, extensions and ids as the notes record them', () => {
  for (const dialect of ['document', 'live'] as const) {
    const live = dialect === 'live';
    describe(`${dialect} dialect`, () => {
      let emu: RunningEmulator;
      let http: Api;
      let r: Awaited<ReturnType<typeof refs>>;
      let folderId: string;
      let D: string;
      // a clock with a millisecond part, so whole seconds show
      let now = 1_800_000_000_123;

      beforeAll(async () => {
        ({ emu, http } = await start({ dialect, now: () => now }));
        D = `/projects/${await projectId(http)}`;
        r = await refs(http);
        folderId = await folder(http, 'Pass two');
      });
      afterAll(async () => {
        await emu.close();
      });

      it(live ? 'seeds the lookup lists with the names the notes captured live' : 'seeds the lookup lists with the typical names (its own, documented)', async () => {
        const names = async (path: string, key: string) => (await http.get(path)).body.data[key].map((l: { name: string }) => l.name);
        expect(await names('/test_cases/priorities', 'priorities')).toEqual(live ? ['Critical', 'Major', 'Medium', 'Minor'] : ['Critical', 'High', 'Medium', 'Low']);
        expect(await names('/test_runs/statuses', 'statuses')).toEqual(
          live ? ['Passed', 'Failed', 'Blocked', 'Skipped', 'UnTested', 'In Progress'] : ['Passed', 'Failed', 'Blocked', 'Skipped', 'Retest', 'In Progress', 'Untested'],
        );
        // a client's bulk update by priority name applies with the names of the dialect
        const c = await testCase(http, r, folderId, { title: 'Reprioritise' });
        const priorities = (await http.get('/test_cases/priorities')).body.data.priorities as { id: string; name: string }[];
        const minor = priorities.find((p) => p.name === (live ? 'Minor' : 'Low'))!;
        expect((await http.put(`${D}/test_cases/${c.id}`, { priority_id: minor.id })).status).toBe(200);
        expect((await http.get(`${D}/test_cases/${c.id}`)).body.data.test_case.priority_id).toBe(minor.id);
      });

      it('fills closed_by when a run is closed', async () => {
        const run = (await http.post(`${D}/test_runs`, { title: 'To close' })).body.data.test_run;
        expect(run.closed_by).toBeNull();
        const closed = (await http.put(`${D}/test_runs/${run.id}`, { status: 'CLOSED' })).body.data.test_run;
        expect(closed.closed_by).toBe(r.owner_id);
        expect((await http.get(`${D}/test_runs/${run.id}`)).body.data.test_run.closed_by).toBe(r.owner_id);
      });

      it('answers an unknown id with 404 and errors.details "<entity> not found with ID: <id>"', async () => {
        const missing = '00000000-0000-4000-8000-000000000000';
        for (const [path, entity] of [
          [`${D}/test_cases/${missing}`, 'Test case'],
          [`${D}/test_runs/${missing}`, 'Test run'],
          [`${D}/test_plans/${missing}`, 'Test plan'],
          [`/projects/${missing}`, 'Project'],
        ] as const) {
          const res = await http.get(path);
          expect(res.status).toBe(404);
          expect(res.body.errors.details).toBe(`${entity} not found with ID: ${missing}`);
        }
      });

      it('names an unknown lookup id in plain words (no "statuse", no "prioritie")', async () => {
        const missing = '00000000-0000-4000-8000-000000000001';
        const res = await http.post(`${D}/test_cases`, { ...r, users: undefined, labels: undefined, title: 'Bad ids', folder_id: folderId, status_id: missing, priority_id: missing });
        expect(res.status).toBe(live ? 400 : 422);
        expect(res.text).toContain('no status with this id');
        expect(res.text).toContain('no priority with this id');
        expect(res.text).not.toMatch(/statuse |prioritie /);
      });

      it(live ? 'answers the non-empty folder 409 with a string errors.details' : 'answers the non-empty folder 409 with its counts in errors.details', async () => {
        const full = await folder(http, 'Full');
        await testCase(http, r, full, { title: 'Inside' });
        const res = await http.del(`${D}/folders/${full}`);
        expect(res.status).toBe(409);
        if (live) expect(typeof res.body.errors.details).toBe('string');
        else expect(res.body.errors.details).toEqual({ folders: 0, test_cases: 1 });
      });

      it(live ? 'answers a test case PUT with its labels as objects' : 'answers a test case PUT without label_ids (as the document shows it)', async () => {
        const label = r.labels[1];
        const c = await testCase(http, r, folderId, { title: 'Labels on PUT', label_ids: [label.id] });
        const put = (await http.put(`${D}/test_cases/${c.id}`, { title: 'Labels on PUT, renamed' })).body.data.test_case;
        if (live) expect(put.labels).toEqual([{ id: label.id, name: label.name, createdAt: expect.any(Number), updatedAt: expect.any(Number) }]);
        else expect(put).not.toHaveProperty('labels');
        expect(put).not.toHaveProperty('label_ids');
      });

      it(live ? 'sends a negative x-tms-api-reset under --rate-limit' : 'sends the seconds until the window frees up as x-tms-api-reset under --rate-limit', async () => {
        emu.setFaults({ rateLimit: 100 });
        try {
          const res = await http.get('/users');
          expect(res.headers.get('x-tms-api-limit')).toBe('100');
          const reset = Number(res.headers.get('x-tms-api-reset'));
          if (live) expect(reset).toBeLessThan(0);
          else expect(reset).toBeGreaterThanOrEqual(0);
        } finally {
          emu.setFaults({ rateLimit: undefined });
        }
      });

      it(live ? 'ignores an unknown query parameter on a route without named parameters' : 'words the 422 for an unknown query parameter on a route without named parameters plainly', async () => {
        const res = await http.get('/labels?foo=1');
        if (live) {
          expect(res.status).toBe(200);
          return;
        }
        expect(res.status).toBe(422);
        expect(res.body.errors.details[0].message).toBe('unknown query parameter; this endpoint takes <field>__<OP> filters on name');
      });

      it(live ? 'sends timestamps with their real milliseconds' : 'sends timestamps in whole Unix seconds', async () => {
        now += 1;
        const plan = (await http.post(`${D}/test_plans`, { title: 'Stamped' })).body.data.test_plan;
        expect(plan.created_at).toBe(live ? now : Math.floor(now / 1000));
        const c = await testCase(http, r, folderId, { title: 'Stamped case', label_ids: [r.labels[0].id] });
        expect(c.created_at).toBe(live ? now : Math.floor(now / 1000));
      });

      it(live ? 'leaves the emulator\'s extensions out of plans and import answers and refuses execution_id in a plan body' : 'shows execution_id on plans and takes a plan body that echoes it', async () => {
        const plan = (await http.post(`${D}/test_plans`, { title: 'Echoed' })).body.data.test_plan;
        const got = (await http.get(`${D}/test_plans/${plan.id}`)).body.data.test_plan;
        const listed = (await http.get(`${D}/test_plans?page_size=100`)).body.data.test_plans.find((p: { id: string }) => p.id === plan.id);
        for (const p of [plan, got, listed]) {
          if (live) expect(p).not.toHaveProperty('execution_id');
          else expect(Number.isInteger(p.execution_id)).toBe(true);
        }
        // a client that GETs, merges and PUTs sends back what the GET held
        const echo = await http.put(`${D}/test_plans/${plan.id}`, { title: 'Echoed again', execution_id: 42 });
        if (live) {
          expect(echo.status).toBe(400);
          expect(echo.body.errors.details).toContain('execution_id');
        } else expect(echo.status).toBe(200);
        const run = (await http.post(`${D}/test_runs`, { title: 'Imported' })).body.data.test_run;
        const form = new FormData();
        form.append('junit_xml', new Blob(['<testsuite name="s"><testcase name="x"/></testsuite>']), 'r.xml');
        const imported = (await http.call('POST', `${D}/junit-import/test-run/${run.id}`, undefined, { raw: form })).body.data.import;
        const status = (await http.get(`${D}/junit-imports/${imported.id}/status`)).body.data.import;
        if (live) {
          expect(Object.keys(imported).sort()).toEqual(['id', 'status']);
          expect(Object.keys(status).sort()).toEqual(['id', 'status']);
        } else {
          expect(imported.test_run_id).toBe(run.id);
          expect(status.test_run_id).toBe(run.id);
        }
      });

      it(live ? 'refuses a project prefix as :project_id and human ids in selection filters (the notes\' ids are uuids)' : 'takes a project prefix as :project_id and human ids in selection filters (documented conveniences)', async () => {
        const byPrefix = await http.get('/projects/DEMO/test_plans');
        if (live) expect(byPrefix.body).toEqual({ message: 'Invalid ID format: DEMO', errors: { code: 400, message: 'Invalid ID format: DEMO', details: 'Invalid ID format: DEMO' } });
        else expect(byPrefix.status).toBe(200);
        const c = await testCase(http, r, folderId, { title: 'By human id' });
        const staticRun = await http.post(`${D}/test_runs`, { title: 'Static', static_selection_filters: [{ field: 'id', operator: 'IN', values: [c.human_id] }] });
        const dynamicRun = await http.post(`${D}/test_runs`, { title: 'Dynamic', selection_type: 'DYNAMIC', dynamic_selection_filters: [], dynamic_selection_excluded_test_case_ids: [c.human_id] });
        for (const [res, field] of [
          [staticRun, 'static_selection_filters.0.values.0'],
          [dynamicRun, 'dynamic_selection_excluded_test_case_ids.0'],
        ] as const) {
          if (live) {
            expect(res.status).toBe(400);
            expect(res.body.errors.details).toContain(`${field}: Invalid ID format: ${c.human_id}`);
          } else expect(res.status).toBe(200);
        }
      });
    });
  }
});
