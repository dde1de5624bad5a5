import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyRing } from '../auth.js';
import type { DbContext } from '../db/index.js';
import { html, layout, pageOf } from './html.js';
import { ServiceError } from '../service-error.js';
import * as pages from './pages.js';
import { FAVICON, STYLESHEET } from './style.js';

/**
 * The emulator's read-only web UI: server-rendered HTML under `/ui/` (and `/` redirects there).
 * It asks for an API key in a form and keeps it in an HttpOnly, SameSite=Strict cookie; without
 * an accepted key no page shows any data (401 with the key form). Nothing here writes, except that
 * reading a finished execution run settles its results, as `GET /execution_results/:id` does.
 */
interface UiDeps {
  db: DbContext;
  keys: KeyRing;
  now: () => number;
  runDurationMs: number;
}

const UI_COOKIE = 'tmsync_ui_key';

/**
 * True for the paths the UI serves: they skip the API's bearer check, faults and request log.
 * `/favicon.ico`, which browsers ask for on their own, is one of them so that it answers 404
 * rather than the API's 401 (the pages link their icon, `/ui/favicon.svg`).
 */
export function isUiPath(url: string): boolean {
  if (url === '/favicon.ico') return true;
  return url === '/' || url.startsWith('/?') || url === '/ui' || url.startsWith('/ui/') || url.startsWith('/ui?');
}

/**
 * Sent with every UI answer. The pages are server-rendered with one stylesheet and no script, so
 * the policy allows nothing else: no script at all, no inline style, no framing (clickjacking),
 * forms only to the emulator itself. No referrer: page addresses name projects and cases.
 */
const UI_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/**
 * Why a POST of the key form or of "Sign out" comes from another site, or undefined when it comes
 * from the emulator's own pages (or from a client that sends neither header, such as curl: no
 * browser, so no cross-site forgery). `Sec-Fetch-Site` decides when the browser sends it; the
 * pages' `Referrer-Policy: no-referrer` makes browsers send `Origin: null` even for their own form
 * posts, so a `null` origin is trusted only with `Sec-Fetch-Site: same-origin`. Only the host is
 * compared with `Host`: the emulator speaks plain HTTP, a proxy in front may not.
 */
function crossSiteReason(req: FastifyRequest): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site: ${site}`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === 'null') return site === 'same-origin' ? undefined : 'Origin: null';
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  return host !== undefined && host === req.headers.host ? undefined : `Origin: ${origin}`;
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

const ANYWHERE = 'http://emulator.invalid';

/**
 * The page to go to after signing in: a path of the UI, else `/ui/` (no open redirect). It becomes
 * a `Location` header, so it must be printable ASCII (a raw CR/LF or a character above U+00FF cannot
 * be sent in a header at all); `..` segments must not lead out of `/ui/`.
 */
function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !/^\/ui\/[\x21-\x7e]*$/.test(next) || next.includes('\\')) return '/ui/';
  const url = new URL(next, ANYWHERE);
  if (url.origin !== ANYWHERE || !url.pathname.startsWith('/ui/')) return '/ui/';
  return `${url.pathname}${url.search}`;
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

function refuseCrossSite(reply: FastifyReply, why: string, signedIn: boolean): FastifyReply {
  return sendHtml(
    reply,
    403,
    layout(
      'Refused',
      html`<p class="error" role="alert">This form was posted from another site (${why}), so it was refused.</p>
<p>Sign in or out from the emulator's own pages: <a href="/ui/">open the projects</a>.</p>`,
      { signedIn },
    ),
  );
}

export async function registerUi(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const env: pages.PageEnv = { ctx: deps.db, now: deps.now, runDurationMs: deps.runDurationMs };
  const signedIn = (req: FastifyRequest) => {
    const key = cookieKey(req);
    return key !== undefined && deps.keys.accepts(key) !== undefined;
  };

  app.addHook('onRequest', async (req, reply) => {
    if (isUiPath(req.url)) reply.headers(UI_SECURITY_HEADERS);
  });
  app.get('/', async (_req, reply) => reply.redirect('/ui/', 302));
  app.get('/ui/style.css', async (_req, reply) =>
    reply.header('cache-control', 'max-age=300').type('text/css; charset=utf-8').send(STYLESHEET),
  );
  app.get('/ui/favicon.svg', async (_req, reply) =>
    reply.header('cache-control', 'max-age=300').type('image/svg+xml').send(FAVICON),
  );

  await app.register(async (ui) => {
    // the key form posts application/x-www-form-urlencoded; this parser lives only in the UI's scope
    ui.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    ui.post('/login', async (req, reply) => {
      const crossSite = crossSiteReason(req);
      if (crossSite) return refuseCrossSite(reply, crossSite, signedIn(req));
      const form = (req.body ?? {}) as Record<string, unknown>;
      const key = typeof form.key === 'string' ? form.key.trim() : '';
      const next = safeNext(form.next);
      if (!deps.keys.accepts(key)) return sendHtml(reply, 401, keyForm(next, 'That API key is not accepted by this emulator. Check it and try again.'));
      reply.header('set-cookie', `${UI_COOKIE}=${encodeURIComponent(key)}; Path=/; HttpOnly; SameSite=Strict`);
      return reply.redirect(next, 303);
    });

    ui.post('/logout', async (req, reply) => {
      // without this, any site could sign the user out (a form posting here)
      const crossSite = crossSiteReason(req);
      if (crossSite) return refuseCrossSite(reply, crossSite, signedIn(req));
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
    ui.get('/projects/:project/runs/:run/attachments/:id', async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
      let file: ReturnType<typeof pages.attachmentFile>;
      try {
        file = pages.attachmentFile(env, req.params.project, req.params.run, req.params.id);
      } catch (err) {
        if (err instanceof ServiceError && err.status === 404) return sendHtml(reply, 404, pages.notFoundPage(err.message, true));
        throw err;
      }
      // images are shown; anything else is downloaded, never rendered as a page of the emulator's origin
      const inline = pages.INLINE_IMAGE_TYPES.has(file.media_type);
      const name = encodeURIComponent(file.file_name);
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${name}`)
        .type(inline ? file.media_type : 'application/octet-stream')
        .send(file.body);
    });
    // the execution interface's runs: `run trigger` prints `<origin>/ui/runs/<id>` (the answer's app_url)
    ui.get('/runs', page((req) => pages.executionsPage(env, n(req))));
    ui.get('/runs/:id', page((req) => pages.executionPage(env, req.params.id)));

    ui.setNotFoundHandler(async (req, reply) => {
      if (!signedIn(req)) return sendHtml(reply, 401, keyForm('/ui/'));
      return sendHtml(reply, 404, pages.notFoundPage('No such page', true));
    });
  }, { prefix: '/ui' });
}
