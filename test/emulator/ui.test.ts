import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as db from '../../src/emulator/db/index.js';
import type { DbContext } from '../../src/emulator/db/index.js';
import { HOSTILE, UI_KEY, uiApp, type UiSeed } from './ui-fixture.js';

let app: FastifyInstance;
let ctx: DbContext;
let seed: UiSeed;
let clock: { now: number };

beforeEach(async () => {
  ({ app, ctx, seed, clock } = await uiApp());
});
afterEach(async () => {
  await app.close();
  ctx.db.close();
});

const COOKIE = `tmsync_ui_key=${encodeURIComponent(UI_KEY)}`;
const get = (url: string, cookie: string | null = COOKIE) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

describe('the web UI key form', () => {
  it('answers every data page with 401 and the key form, showing no data, when no key cookie is sent', async () => {
    for (const url of ['/ui/', '/ui/projects/DEMO', `/ui/projects/DEMO/cases/${seed.plainCase.human_id}`, '/ui/runs/1', '/ui/projects/DEMO/runs/DEMO-R-1', '/ui/nope']) {
      const r = await get(url, null);
      expect(r.statusCode, url).toBe(401);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.body).toContain('type="password"');
      expect(r.body).not.toContain('Valid login');
      expect(r.body).not.toContain('Authentication');
    }
  });

  it('refuses a cookie holding a key the emulator does not accept', async () => {
    const r = await get('/ui/projects/DEMO', 'tmsync_ui_key=wrong');
    expect(r.statusCode).toBe(401);
    expect(r.body).not.toContain('Authentication');
  });

  it('sets an HttpOnly SameSite=Strict cookie for an accepted key and redirects to the page asked for', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/ui/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key: UI_KEY, next: '/ui/projects/DEMO' }).toString(),
    });
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('/ui/projects/DEMO');
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toMatch(/^tmsync_ui_key=ui-test-key;/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
  });

  it('answers a wrong key with 401, the form again and a message, and sets no cookie', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/ui/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'key=nope&next=%2Fui%2F',
    });
    expect(r.statusCode).toBe(401);
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(r.body).toContain('not accepted');
    expect(r.body).toContain('type="password"');
  });

  it('redirects only to its own pages after signing in (no open redirect)', async () => {
    for (const next of ['https://evil.example/', '//evil.example/ui/', '/api/v1/projects']) {
      const r = await app.inject({
        method: 'POST',
        url: '/ui/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ key: UI_KEY, next }).toString(),
      });
      expect(r.headers.location, next).toBe('/ui/');
    }
  });

  it('sign-out clears the cookie', async () => {
    const r = await app.inject({ method: 'POST', url: '/ui/logout', headers: { cookie: COOKIE } });
    expect(r.statusCode).toBe(303);
    expect(String(r.headers['set-cookie'])).toMatch(/^tmsync_ui_key=; .*Max-Age=0/);
  });

  it('leaves the API as it was: a bearer key is still required there, and a UI cookie is not one', async () => {
    const r = await app.inject({ method: 'GET', url: '/api/v1/projects', headers: { cookie: COOKIE } });
    expect(r.statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/api/v1/projects', headers: { authorization: `Bearer ${UI_KEY}` } });
    expect(ok.statusCode).toBe(200);
  });

  it('redirects / to the projects page and serves its stylesheet without a key', async () => {
    const root = await get('/', null);
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/ui/');
    const css = await get('/ui/style.css', null);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toMatch(/@media \(max-width/);
  });
});

describe('the web UI pages', () => {
  it('lists the projects with a link to each, in a page with a viewport meta for narrow screens', async () => {
    const r = await get('/ui/');
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(r.body).toContain('href="/ui/projects/DEMO"');
  });

  it('shows the folder tree with the number of cases directly in each folder and with subfolders', async () => {
    const r = await get('/ui/projects/DEMO');
    expect(r.statusCode).toBe(200);
    const auth = new RegExp(`href="/ui/projects/DEMO/folders/${seed.authFolder.id}">Authentication</a> <span class="count"[^>]*>1</span> <span class="muted">\\(3 with subfolders\\)`);
    expect(r.body).toMatch(auth);
    expect(r.body).toMatch(new RegExp(`folders/${seed.loginFolder.id}">Login</a> <span class="count"[^>]*>2</span>`));
    expect(r.body).toMatch(/">Legacy &lt;b&gt;bold&lt;\/b&gt;<\/a> <span class="count"[^>]*>0<\/span>/);
  });

  it("lists a folder's cases with links to them", async () => {
    const r = await get(`/ui/projects/DEMO/folders/${seed.loginFolder.id}`);
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain(`href="/ui/projects/DEMO/cases/${seed.plainCase.human_id}">Valid login</a>`);
    expect(r.body).not.toContain('>Logout<');
  });

  it('shows a case with its fields and steps, marking the steps from a step group and linking to the group', async () => {
    const r = await get(`/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`);
    expect(r.statusCode).toBe(200);
    for (const text of ['About ', 'A user exists', 'qa-lead@example.com', 'ana@example.com', 'smoke', 'STEP_BY_STEP', 'Open /login', 'The caret blinks']) {
      expect(r.body).toContain(text);
    }
    const marks = r.body.match(/<li class="from-group"><span class="step-group-mark">From step group <a href="\/ui\/projects\/DEMO\/step-groups\/DEMO-SG-1">DEMO-SG-1: Open the sign-in page<\/a>/g) ?? [];
    expect(marks).toHaveLength(2);
    expect(r.body).toContain('<li><div class="pre">Type &lt;b&gt;not bold&lt;/b&gt; and submit</div>');
  });

  it('escapes a hostile title everywhere it is shown', async () => {
    const escaped = '&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt; &amp; &quot;q&quot;';
    for (const url of [`/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`, `/ui/projects/DEMO/folders/${seed.loginFolder.id}`, `/ui/projects/DEMO/runs/${seed.run.human_id}`]) {
      const r = await get(url);
      expect(r.body, url).toContain(escaped);
      expect(r.body, url).not.toContain(HOSTILE);
      expect(r.body, url).not.toMatch(/<script|<img/);
    }
  });

  it('shows a step group with its steps, and the lists of step groups, plans and runs', async () => {
    const g = await get('/ui/projects/DEMO/step-groups/DEMO-SG-1');
    expect(g.statusCode).toBe(200);
    expect(g.body).toContain('Focus the e-mail field');
    expect((await get('/ui/projects/DEMO/step-groups')).body).toContain('href="/ui/projects/DEMO/step-groups/DEMO-SG-1"');
    expect((await get('/ui/projects/DEMO/plans')).body).toContain(`href="/ui/projects/DEMO/plans/${seed.plan.human_id}"`);
    const plan = await get(`/ui/projects/DEMO/plans/${seed.plan.human_id}`);
    expect(plan.body).toContain(`href="/ui/projects/DEMO/runs/${seed.run.human_id}"`);
    expect((await get('/ui/projects/DEMO/runs')).body).toContain(`href="/ui/projects/DEMO/runs/${seed.run.human_id}">Nightly</a>`);
  });

  it('links step groups and plans by their title as well as their id', async () => {
    expect((await get('/ui/projects/DEMO/step-groups')).body).toContain('href="/ui/projects/DEMO/step-groups/DEMO-SG-1">Open the sign-in page</a>');
    expect((await get('/ui/projects/DEMO/plans')).body).toContain(`href="/ui/projects/DEMO/plans/${seed.plan.human_id}">Release 1</a>`);
  });

  it("counts the project's folders in the Folders badge, and its cases apart", async () => {
    const r = await get('/ui/projects/DEMO');
    // three folders (Authentication, Login, Legacy) holding three cases: 3 either way, so add an empty folder
    expect(r.body).toMatch(/<h2>Folders <span class="count"[^>]*>3<\/span><\/h2>/);
    db.insertFolder(ctx, seed.projectId, 'Empty', undefined);
    const again = await get('/ui/projects/DEMO');
    expect(again.body).toMatch(/<h2>Folders <span class="count"[^>]*>4<\/span><\/h2>/);
    expect(again.body).toMatch(/<li>Test cases <span class="count">3<\/span><\/li>/);
  });

  it("shows each run's results per status in the project's list of test runs and in a plan's", async () => {
    for (const url of ['/ui/projects/DEMO/runs', `/ui/projects/DEMO/plans/${seed.plan.human_id}`]) {
      const body = (await get(url)).body;
      const row = body.slice(body.indexOf(`>${seed.run.human_id}</a>`));
      expect(row, url).toMatch(
        /<td data-label="Results"><ul class="results" aria-label="results per status"><li><span class="badge st-passed">Passed: 1<\/span><\/li><li><span class="badge st-failed">Failed: 1<\/span><\/li><li><span class="badge st-none">No result: 1<\/span><\/li><\/ul><\/td>/,
      );
    }
  });

  it('labels every cell of every list table with its column heading, for the cards of narrow screens', async () => {
    for (const url of ['/ui/', `/ui/projects/DEMO/folders/${seed.loginFolder.id}`, '/ui/projects/DEMO/step-groups', '/ui/projects/DEMO/plans', `/ui/projects/DEMO/plans/${seed.plan.human_id}`, '/ui/projects/DEMO/runs', `/ui/projects/DEMO/runs/${seed.run.human_id}`]) {
      const body = (await get(url)).body;
      const heads = [...body.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
      const rows = [...body.matchAll(/<tr>(<td[\s\S]*?)<\/tr>/g)].map((m) => [...m[1].matchAll(/<td( data-label="([^"]*)")?/g)].map((c) => c[2]));
      expect(rows.length, url).toBeGreaterThan(0);
      for (const row of rows) expect(row, url).toEqual(heads);
    }
  });

  it("shows a test run's results coloured by status with a count per status", async () => {
    const r = await get(`/ui/projects/DEMO/runs/${seed.run.human_id}`);
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('<span class="badge st-passed">Passed: 1</span>');
    expect(r.body).toContain('<span class="badge st-failed">Failed: 1</span>');
    expect(r.body).toContain('<span class="badge st-none">No result: 1</span>');
    expect(r.body).toMatch(new RegExp(`cases/${seed.failingCase.human_id}">${seed.failingCase.human_id}</a></td><td data-label="Title">Logout</td><td data-label="Result"><span class="badge st-failed">Failed</span>`));
    expect(r.body).toContain('the button &lt;em&gt;vanished&lt;/em&gt;');
  });

  it('answers an unknown project, case or run with a 404 page', async () => {
    for (const url of ['/ui/projects/NOPE', '/ui/projects/DEMO/cases/DEMO-999', '/ui/projects/DEMO/runs/DEMO-R-99', '/ui/runs/77', '/ui/runs/abc', '/ui/elsewhere']) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});

describe('the execution interface in the web UI', () => {
  it('opens the app_url a triggered run answers with, showing its status, counts and test run', async () => {
    const headers = { authorization: `Bearer ${UI_KEY}`, 'content-type': 'application/json' };
    const t = await app.inject({ method: 'POST', url: '/api/v1/execution_results', headers, payload: JSON.stringify({ executionId: seed.plan.human_id, buildNo: '42' }) });
    expect(t.statusCode).toBe(200);
    const id = t.json<{ id: number }>().id;
    const status = await app.inject({ method: 'GET', url: `/api/v1/execution_results/${id}`, headers: { authorization: `Bearer ${UI_KEY}`, host: '127.0.0.1:9' } });
    const appUrl = new URL(status.json<{ app_url: string }>().app_url);

    const running = await get(appUrl.pathname);
    expect(running.statusCode).toBe(200);
    expect(running.body).toContain('STATUS_CREATED');
    expect(running.body).toContain('<span class="badge st-queued">Queued: 3</span>');

    clock.now += 3000;
    const done = await get(appUrl.pathname);
    expect(done.body).toContain('STATUS_COMPLETED');
    expect(done.body).toContain('<span class="badge st-passed">Passed: 3</span>');
    expect(done.body).toContain('<span class="badge st-failed">Failed: 0</span>');
    const runRow = db.listRuns(ctx, seed.projectId, { planId: seed.plan.id }, { limit: 10, offset: 0 }).items.find((r) => r.id !== seed.run.id)!;
    expect(done.body).toContain(`href="/ui/projects/DEMO/runs/${runRow.human_id}"`);
    // the test run holds the settled results, as the API reports them
    const runPage = await get(`/ui/projects/DEMO/runs/${runRow.human_id}`);
    expect(runPage.body).toContain('<span class="badge st-passed">Passed: 3</span>');

    const list = await get('/ui/runs');
    expect(list.body).toContain(`href="/ui/runs/${id}">#${id}</a></td><td data-label="Build">42</td>`);
  });

  it('closes the test run of a triggered run once the run has finished, as a PUT {"status":"CLOSED"} would', async () => {
    const headers = { authorization: `Bearer ${UI_KEY}`, 'content-type': 'application/json' };
    const trigger = () => app.inject({ method: 'POST', url: '/api/v1/execution_results', headers, payload: JSON.stringify({ executionId: seed.plan.human_id }) });
    const testRun = (id: number) => db.findRun(ctx, seed.projectId, db.findExecution(ctx, id)!.run_id!)!;
    const apiRun = async (id: number) =>
      (await app.inject({ method: 'GET', url: `/api/v1/projects/DEMO/test_runs/${testRun(id).id}`, headers })).json().data.test_run as { status: string; closed_by: string | null };

    // read through the API: the completed execution's status
    const first = (await trigger()).json().id as number;
    expect(await apiRun(first)).toMatchObject({ status: 'ACTIVE', closed_by: null });
    clock.now += 3000;
    await app.inject({ method: 'GET', url: `/api/v1/execution_results/${first}`, headers });
    expect(await apiRun(first)).toMatchObject({ status: 'CLOSED', closed_by: db.listUsers(ctx)[0].id });

    // read through the UI's list of test runs, without opening the execution run
    const second = (await trigger()).json().id as number;
    clock.now += 3000;
    const runs = (await get('/ui/projects/DEMO/runs')).body;
    const status = (humanId: string) => new RegExp(`>${humanId}</a></td><td data-label="Title"><a [^>]*>[^<]*</a></td><td data-label="Status">([A-Z]+)</td>`).exec(runs)?.[1];
    expect(status(testRun(second).human_id)).toBe('CLOSED');
    expect(status(seed.run.human_id)).toBe('ACTIVE');
  });
});

describe("the API's web_url extension", () => {
  const api = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${UI_KEY}`, host: 'tms.test:8080' } });
  const data = async (url: string) => (await api(url)).json().data;

  it('links a project, a case, a test plan and a test run to their pages, on the host the API was reached on', async () => {
    const items = [
      { wire: (await data('/api/v1/projects/DEMO')).project, path: '/ui/projects/DEMO', h1: 'Demo (DEMO)' },
      { wire: (await data(`/api/v1/projects/DEMO/test_cases/${seed.plainCase.id}`)).test_case, path: `/ui/projects/DEMO/cases/${seed.plainCase.human_id}`, h1: `${seed.plainCase.human_id}: Valid login` },
      { wire: (await data(`/api/v1/projects/DEMO/test_plans/${seed.plan.id}`)).test_plan, path: `/ui/projects/DEMO/plans/${seed.plan.human_id}`, h1: `${seed.plan.human_id}: Release 1` },
      { wire: (await data(`/api/v1/projects/DEMO/test_runs/${seed.run.id}`)).test_run, path: `/ui/projects/DEMO/runs/${seed.run.human_id}`, h1: `${seed.run.human_id}: Nightly` },
    ];
    for (const { wire, path, h1 } of items) {
      expect(wire.web_url).toBe(`http://tms.test:8080${path}`);
      const page = await get(new URL(wire.web_url).pathname);
      expect(page.statusCode, path).toBe(200);
      expect(page.body).toContain(`<h1>${h1}</h1>`);
    }
  });

  it('carries it on the items of the project, plan and run lists, and on case writes, but not in the case list', async () => {
    expect((await data('/api/v1/projects')).projects[0].web_url).toBe('http://tms.test:8080/ui/projects/DEMO');
    expect((await data('/api/v1/projects/DEMO/test_plans')).test_plans[0].web_url).toBe(`http://tms.test:8080/ui/projects/DEMO/plans/${seed.plan.human_id}`);
    expect((await data('/api/v1/projects/DEMO/test_runs')).test_runs[0].web_url).toBe(`http://tms.test:8080/ui/projects/DEMO/runs/${seed.run.human_id}`);
    expect((await data('/api/v1/projects/DEMO/test_cases')).test_cases[0]).not.toHaveProperty('web_url');
    const updated = await app.inject({
      method: 'PUT',
      url: `/api/v1/projects/DEMO/test_cases/${seed.failingCase.id}`,
      headers: { authorization: `Bearer ${UI_KEY}`, host: 'tms.test:8080', 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'Logout everywhere' }),
    });
    expect(updated.json().data.test_case.web_url).toBe(`http://tms.test:8080/ui/projects/DEMO/cases/${seed.failingCase.human_id}`);
  });
});

describe('the web UI on a large project', () => {
  it('pages a folder of 10,000 cases 50 at a time, with links to the next and previous pages', async () => {
    const project = db.findProject(ctx, 'DEMO')!;
    const big = db.insertFolder(ctx, project.id, 'Big', undefined);
    const f = db.findCase(ctx, project.id, seed.plainCase.id)!;
    ctx.tx(() => {
      for (let i = 1; i <= 10_000; i++) db.insertCase(ctx, project.id, 'DEMO', { ...f, title: `Bulk case ${i}`, folder_id: big.id }, []);
    });
    const tree = await get('/ui/projects/DEMO');
    expect(tree.body).toMatch(new RegExp(`folders/${big.id}">Big</a> <span class="count"[^>]*>10000</span>`));
    const first = await get(`/ui/projects/DEMO/folders/${big.id}`);
    expect(first.body.match(/<tr><td data-label="Id"><a href="\/ui\/projects\/DEMO\/cases\//g)).toHaveLength(50);
    expect(first.body).toContain('Bulk case 50<');
    expect(first.body).not.toContain('Bulk case 51<');
    expect(first.body).toContain('Page 1 of 200 (10000 in all)');
    expect(first.body).toContain(`rel="next" href="/ui/projects/DEMO/folders/${big.id}?page=2"`);
    const last = await get(`/ui/projects/DEMO/folders/${big.id}?page=200`);
    expect(last.body).toContain('Bulk case 10000<');
    expect(last.body).toContain('rel="prev"');
    expect(last.body).not.toContain('rel="next"');
  });
});

describe('tmsync serve and the web UI', () => {
  it('prints the web UI address, which answers with the key form', async () => {
    const { runServe } = await import('../../src/cli/commands/serve.js');
    const { memoryIo } = await import('../../src/cli/io.js');
    const ac = new AbortController();
    const io = { ...memoryIo(), signal: ac.signal };
    const done = runServe({ port: '0', memory: true, apiKey: [UI_KEY] }, io);
    for (let i = 0; i < 3000 && io.err.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const ui = /web UI at (http:\/\/127\.0\.0\.1:\d+\/);/.exec(io.err.join('\n'))?.[1];
    expect(ui, io.err.join('\n')).toBeDefined();
    const r = await fetch(ui!);
    expect(r.status).toBe(401);
    expect(await r.text()).toContain('type="password"');
    ac.abort();
    expect(await done).toBe(0);
  });
});
