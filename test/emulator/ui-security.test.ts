import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as db from '../../src/emulator/db/index.js';
import type { DbContext } from '../../src/emulator/db/index.js';
import { start } from './helpers.js';
import { UI_KEY, uiApp, type UiSeed } from './ui-fixture.js';

let app: FastifyInstance;
let ctx: DbContext;
let seed: UiSeed;

beforeEach(async () => {
  ({ app, ctx, seed } = await uiApp());
});
afterEach(async () => {
  await app.close();
  ctx.db.close();
});

const COOKIE = `tmsync_ui_key=${encodeURIComponent(UI_KEY)}`;
const HOST = '127.0.0.1:4010';
const get = (url: string, cookie: string | null = COOKIE) => app.inject({ method: 'GET', url, headers: { host: HOST, ...(cookie ? { cookie } : {}) } });
const login = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/ui/login',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });

describe('signing in with a hostile next', () => {
  it('redirects to the projects for a next holding CR/LF or characters no header can carry, instead of a 500', async () => {
    for (const next of ['/ui/\r\nSet-Cookie: x=1', '/ui/a\nb', '/ui/caf\u00e9\u0100', '/ui/\u{1F600}', '/ui/\t', '/ui/../api/v1/projects']) {
      const r = await login({ key: UI_KEY, next });
      expect(r.statusCode, JSON.stringify(next)).toBe(303);
      expect(r.headers.location, JSON.stringify(next)).toBe('/ui/');
      expect(r.headers['x']).toBeUndefined();
    }
  });

  it('keeps a next holding percent-encoded text and a query', async () => {
    const r = await login({ key: UI_KEY, next: '/ui/projects/DEMO/folders/caf%C3%A9?page=2' });
    expect(r.headers.location).toBe('/ui/projects/DEMO/folders/caf%C3%A9?page=2');
  });

  it('answers the key form of a page whose address holds characters above U+00FF', async () => {
    const r = await get('/ui/projects/%E2%82%AC%0D%0A', null);
    expect(r.statusCode).toBe(401);
    expect(r.body).toContain('type="password"');
  });
});

describe('the web UI security headers', () => {
  const EXPECTED_CSP = /^default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/;

  it('sends a Content-Security-Policy without inline script, nosniff and no-referrer on every UI answer', async () => {
    const answers = [
      await get('/ui/', null),
      await get('/ui/'),
      await get(`/ui/projects/DEMO/cases/${seed.plainCase.human_id}`),
      await get('/ui/projects/NOPE'),
      await get('/ui/style.css', null),
      await get('/', null),
      await login({ key: UI_KEY, next: '/ui/' }),
      await login({ key: 'wrong', next: '/ui/' }),
    ];
    for (const r of answers) {
      const what = `${r.statusCode} ${r.headers['content-type']}`;
      expect(r.headers['content-security-policy'], what).toMatch(EXPECTED_CSP);
      expect(r.headers['x-content-type-options'], what).toBe('nosniff');
      expect(r.headers['referrer-policy'], what).toBe('no-referrer');
    }
  });

  it('serves pages that need nothing the policy forbids: no script, no inline style, no style attribute', async () => {
    for (const url of ['/ui/', '/ui/projects/DEMO', `/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`, `/ui/projects/DEMO/runs/${seed.run.human_id}`]) {
      const r = await get(url);
      expect(r.body, url).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=["']/i);
    }
    expect((await get('/ui/', null)).body).not.toMatch(/<script|<style|\sstyle=/i);
  });

  it('answers /favicon.ico without a key with 404, not 401, and links an icon the pages may load', async () => {
    const r = await get('/favicon.ico', null);
    expect(r.statusCode).toBe(404);
    const page = await get('/ui/', null);
    const href = /<link rel="icon" href="([^"]+)"/.exec(page.body)?.[1];
    expect(href).toBe('/ui/favicon.svg');
    const icon = await get(href!, null);
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the Origin of the sign-in and sign-out forms', () => {
  it('refuses a sign-out posted from another site with 403, and keeps the cookie', async () => {
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'http://127.0.0.1:9999' }, { origin: 'null', 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of crossSite) {
      const r = await app.inject({ method: 'POST', url: '/ui/logout', headers: { host: HOST, cookie: COOKIE, ...headers } });
      expect(r.statusCode, JSON.stringify(headers)).toBe(403);
      expect(r.headers['set-cookie'], JSON.stringify(headers)).toBeUndefined();
      expect(r.body).toContain('another site');
    }
  });

  it('refuses a sign-in posted from another site with 403 and sets no cookie', async () => {
    const r = await login({ key: UI_KEY, next: '/ui/' }, { origin: 'https://evil.example' });
    expect(r.statusCode).toBe(403);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('accepts both forms from its own origin, from a same-origin page sending Origin: null (no-referrer), and from clients that send no Origin', async () => {
    const sameSite: Record<string, string>[] = [{ origin: `http://${HOST}` }, { origin: 'null', 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'same-origin' }, {}];
    for (const headers of sameSite) {
      const inn = await login({ key: UI_KEY, next: '/ui/' }, headers);
      expect(inn.statusCode, JSON.stringify(headers)).toBe(303);
      expect(String(inn.headers['set-cookie'])).toMatch(/^tmsync_ui_key=ui-test-key;/);
      const out = await app.inject({ method: 'POST', url: '/ui/logout', headers: { host: HOST, cookie: COOKIE, ...headers } });
      expect(out.statusCode, JSON.stringify(headers)).toBe(303);
      expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    }
  });

  it('refuses Origin: null without a Sec-Fetch-Site saying same-origin (a sandboxed frame of another site sends it)', async () => {
    const r = await login({ key: UI_KEY, next: '/ui/' }, { origin: 'null' });
    expect(r.statusCode).toBe(403);
  });
});

describe('a folder chain thousands of levels deep', () => {
  const DEPTH = 3000;
  let chain: db.FolderRow[];
  beforeEach(() => {
    const project = db.findProject(ctx, 'DEMO')!;
    chain = [];
    ctx.tx(() => {
      let parent: db.FolderRow | undefined;
      for (let i = 0; i < DEPTH; i++) {
        const f = db.insertFolder(ctx, project.id, `Level ${i}`, undefined);
        chain.push(parent ? db.moveFolder(ctx, f, parent.id) : f);
        parent = f;
      }
    });
  });

  it('answers the folder GET with the whole subtree', async () => {
    const r = await app.inject({ method: 'GET', url: `/api/v1/projects/DEMO/folders/${chain[0].id}`, headers: { authorization: `Bearer ${UI_KEY}` } });
    expect(r.statusCode).toBe(200);
    let node = r.json().data.folder;
    let depth = 1;
    while (node.children.length) {
      expect(node.children).toHaveLength(1);
      node = node.children[0];
      depth++;
    }
    expect(depth).toBe(DEPTH);
    expect(node.id).toBe(chain[DEPTH - 1].id);
  });

  it('deletes the project holding it (a cascade through the chain would pass the trigger depth SQLite allows)', async () => {
    const auth = { authorization: `Bearer ${UI_KEY}` };
    const r = await app.inject({ method: 'DELETE', url: '/api/v1/projects/DEMO', headers: auth });
    expect(r.statusCode, r.body).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/v1/projects/DEMO', headers: auth })).statusCode).toBe(404);
    expect(db.findFolder(ctx, chain[0].project_id, chain[DEPTH - 1].id)).toBeUndefined();
  });

  it('shows the project page, the top folder page and the deepest folder page with its whole breadcrumb', async () => {
    const project = await get('/ui/projects/DEMO');
    expect(project.statusCode).toBe(200);
    expect(project.body).toContain(`folders/${chain[DEPTH - 1].id}">Level ${DEPTH - 1}</a>`);
    // one nested list per level below the top (and one for Authentication › Login), all closed
    expect(project.body.match(/<ul>/g)).toHaveLength(DEPTH);
    expect(project.body.match(/<ul[ >]/g)?.length).toBe(project.body.match(/<\/ul>/g)?.length);
    const top = await get(`/ui/projects/DEMO/folders/${chain[0].id}`);
    expect(top.statusCode).toBe(200);
    expect(top.body).toContain(`>Level ${DEPTH - 1}</a>`);
    const deepest = await get(`/ui/projects/DEMO/folders/${chain[DEPTH - 1].id}`);
    expect(deepest.statusCode).toBe(200);
    expect(deepest.body).toContain(`folders/${chain[0].id}">Level 0</a>`);
    expect(deepest.body).toContain(`folders/${chain[DEPTH - 2].id}">Level ${DEPTH - 2}</a>`);
    const caseIn = await get(`/ui/projects/DEMO/folders/${chain[1500].id}`);
    expect(caseIn.body).toContain(`<h1>Level 1500</h1>`);
  });
});

describe('a deep folder GET in the live dialect', () => {
  it('answers the subtree in the live shapes at every level: a top parent of null, milliseconds', async () => {
    const { emu, http } = await start({ dialect: 'live' });
    try {
      const project = db.findProject(emu.db, 'DEMO')!;
      const chain: db.FolderRow[] = [];
      emu.db.tx(() => {
        for (let i = 0; i < 3000; i++) {
          const f = db.insertFolder(emu.db, project.id, `Level ${i}`, undefined);
          chain.push(i ? db.moveFolder(emu.db, f, chain[i - 1].id) : f);
        }
      });
      const r = await http.get(`/projects/${project.id}/folders/${chain[0].id}`);
      expect(r.status).toBe(200);
      let node = r.body.data.folder;
      expect(node.parent_folder_id).toBeNull();
      for (let i = 1; i < 3000; i++) {
        node = node.children[0];
        expect(node.parent_folder_id).toBe(chain[i - 1].id);
      }
      expect(node.children).toEqual([]);
      // a live database stores milliseconds, and the answer carries them as stored
      expect(node.created_at).toBe(chain[2999].created_at);
      expect(node.created_at).toBeGreaterThan(1e12);
    } finally {
      await emu.close();
    }
  });
});
