import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyRing } from '../auth.js';
import type { DbContext } from '../db/index.js';
import { html, layout, pageOf } from './html.js';
import { ServiceError } from '../service-error.js';
import * as pages from './pages.js';
import { STYLESHEET } from './style.js';

/**
 * The emulator's read-only web UI: server-rendered HTML under `/ui/` (and `/` redirects there).
 * It asks for an API key in a form and keeps it in an HttpOnly, SameSite=Strict cookie; without
 * an accepted key no page shows any data (401 with the key form). Nothing here writes, except that
 * reading a finished execution run settles its results, as `GET /execution_results/:id` does.
 */
export interface UiDeps {
  db: DbContext;
  keys: KeyRing;
  now: () => number;
  runDurationMs: number;
}

export const UI_COOKIE = 'tmsync_ui_key';

/** True for the paths the UI serves: they skip the API's bearer check, faults and request log. */
export function isUiPath(url: string): boolean {
  return url === '/' || url.startsWith('/?') || url === '/ui' || url.startsWith('/ui/') || url.startsWith('/ui?');
}

function cookieKey(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() !== UI_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Only a local UI path may be the target after signing in (no open redirect). */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/ui\/[^\\]*$/.test(next) && !next.startsWith('//') ? next : '/ui/';
}

function keyForm(next: string, error?: string): string {
  return layout(
    'Sign in',
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/ui/login" class="key card">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required>
<input type="hidden" name="next" value="${next}">
<button type="submit">Sign in</button>
</form>
<p class="muted">Use a key the emulator accepts (<code>tmsync serve --api-key</code>, or the one it printed).</p>`,
  );
}

const sendHtml = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

export async function registerUi(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const env: pages.PageEnv = { ctx: deps.db, now: deps.now, runDurationMs: deps.runDurationMs };
  const signedIn = (req: FastifyRequest) => {
    const key = cookieKey(req);
    return key !== undefined && deps.keys.accepts(key) !== undefined;
  };

  app.get('/', async (_req, reply) => reply.redirect('/ui/', 302));
  app.get('/ui/style.css', async (_req, reply) =>
    reply.header('cache-control', 'max-age=300').type('text/css; charset=utf-8').send(STYLESHEET),
  );

  await app.register(async (ui) => {
    // the key form posts application/x-www-form-urlencoded; this parser lives only in the UI's scope
    ui.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    ui.post('/login', async (req, reply) => {
      const form = (req.body ?? {}) as Record<string, unknown>;
      const key = typeof form.key === 'string' ? form.key.trim() : '';
      const next = safeNext(form.next);
      if (!deps.keys.accepts(key)) return sendHtml(reply, 401, keyForm(next, 'That API key is not accepted by this emulator. Check it and try again.'));
      reply.header('set-cookie', `${UI_COOKIE}=${encodeURIComponent(key)}; Path=/; HttpOnly; SameSite=Strict`);
      return reply.redirect(next, 303);
    });

    ui.post('/logout', async (_req, reply) => {
      reply.header('set-cookie', `${UI_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
      return reply.redirect('/ui/', 303);
    });

    ui.addHook('onRequest', async (req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return;
      if (signedIn(req)) return;
      return sendHtml(reply, 401, keyForm(safeNext(req.url)));
    });

    type Params = Record<string, string>;
    const page = (render: (req: FastifyRequest<{ Params: Params }>) => string) => async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
      try {
        return sendHtml(reply, 200, render(req));
      } catch (err) {
        if (err instanceof ServiceError && err.status === 404) return sendHtml(reply, 404, pages.notFoundPage(err.message, true));
        throw err;
      }
    };
    const n = (req: FastifyRequest) => pageOf(req.query);

    ui.get('/', page((req) => pages.projectsPage(env, n(req))));
    ui.get('/projects/:project', page((req) => pages.projectPage(env, req.params.project)));
    ui.get('/projects/:project/folders/:folder', page((req) => pages.folderPage(env, req.params.project, req.params.folder, n(req))));
    ui.get('/projects/:project/cases/:case', page((req) => pages.casePage(env, req.params.project, req.params.case)));
    ui.get('/projects/:project/step-groups', page((req) => pages.stepGroupsPage(env, req.params.project, n(req))));
    ui.get('/projects/:project/step-groups/:group', page((req) => pages.stepGroupPage(env, req.params.project, req.params.group)));
    ui.get('/projects/:project/plans', page((req) => pages.plansPage(env, req.params.project, n(req))));
    ui.get('/projects/:project/plans/:plan', page((req) => pages.planPage(env, req.params.project, req.params.plan, n(req))));
    ui.get('/projects/:project/runs', page((req) => pages.runsPage(env, req.params.project, n(req))));
    ui.get('/projects/:project/runs/:run', page((req) => pages.runPage(env, req.params.project, req.params.run, n(req))));
    // the execution interface's runs: `run trigger` prints `<origin>/ui/runs/<id>` (the answer's app_url)
    ui.get('/runs', page((req) => pages.executionsPage(env, n(req))));
    ui.get('/runs/:id', page((req) => pages.executionPage(env, req.params.id)));

    ui.setNotFoundHandler(async (req, reply) => {
      if (!signedIn(req)) return sendHtml(reply, 401, keyForm('/ui/'));
      return sendHtml(reply, 404, pages.notFoundPage('No such page', true));
    });
  }, { prefix: '/ui' });
}
