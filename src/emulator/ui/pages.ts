import * as db from '../db/index.js';
import type { DbContext, ExecutionRow, FolderRow, ProjectRow } from '../db/index.js';
import { executionPhase, settleExecution } from '../routes/execution.js';
import { ServiceError } from '../service-error.js';
import { CASE_FIELDS, fieldOf, type FieldKind } from '../../fields.js';
import { Html, html, layout, listTable, pageRequest, pager, statusClass, when, type Crumb } from './html.js';
import { uiPaths } from './links.js';

/**
 * The web UI's pages: each reads through the db module and returns a whole HTML document. Every
 * list that can grow with the project (a folder's cases, runs, a run's results) is paged.
 */

/** A page about something that does not exist: the UI answers it with its 404 page. */
const missing = (message: string) => new ServiceError(404, message);

export interface PageEnv {
  ctx: DbContext;
  now: () => number;
  runDurationMs: number;
}

const frame = (title: string, body: Html, crumbs: Crumb[] = []) => layout(title, body, { crumbs, signedIn: true });

const projectPath = (p: ProjectRow) => uiPaths.project(p.human_id_prefix);

function projectOf(ctx: DbContext, ref: string): ProjectRow {
  const p = db.findProject(ctx, ref);
  if (!p) throw missing(`No project ${ref}`);
  return p;
}

const home: Crumb = { label: 'Projects', href: '/ui/' };
const projectCrumb = (p: ProjectRow): Crumb => ({ label: p.name, href: projectPath(p) });

export function projectsPage(env: PageEnv, page: number): string {
  const list = db.listProjects(env.ctx, {}, pageRequest(page));
  const body = html`${listTable(
    [{ label: 'Prefix' }, { label: 'Name' }, { label: 'Description', cls: 'pre' }],
    list.items.map((p) => [html`<a href="${projectPath(p)}">${p.human_id_prefix}</a>`, html`<a href="${projectPath(p)}">${p.name}</a>`, p.description || '—']),
  )}
${list.total === 0 ? html`<p class="muted">No projects yet.</p>` : ''}
${pager('/ui/', page, list.total)}`;
  return frame('Projects', body);
}

interface TreeNode {
  folder: FolderRow;
  children: TreeNode[];
  direct: number;
  total: number;
}

interface FolderTree {
  roots: TreeNode[];
  nodes: Map<string, TreeNode>;
}

/**
 * The project's folders as a tree with case counts. Every walk over it is a loop, not a recursion:
 * a chain of folders thousands deep would overflow the stack.
 */
function folderTree(ctx: DbContext, projectId: string): FolderTree {
  const counts = db.caseCountsByFolder(ctx, projectId);
  const nodes = new Map<string, TreeNode>();
  const folders = db.allFolders(ctx, projectId);
  for (const f of folders) nodes.set(f.id, { folder: f, children: [], direct: counts.get(f.id) ?? 0, total: 0 });
  const roots: TreeNode[] = [];
  for (const f of folders) {
    const node = nodes.get(f.id)!;
    const parent = f.parent_id ? nodes.get(f.parent_id) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  // a parent comes before its children in `order`, so summing it backwards adds up each subtree
  const order = preorder(roots);
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    n.total = n.direct;
    for (const c of n.children) n.total += c.total;
  }
  return { roots, nodes };
}

function preorder(roots: TreeNode[]): TreeNode[] {
  const out: TreeNode[] = [];
  const todo = [...roots].reverse();
  while (todo.length) {
    const n = todo.pop()!;
    out.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i]);
  }
  return out;
}

/** Nested lists of links, built with an explicit stack (see {@link folderTree}). */
function renderTree(p: ProjectRow, nodes: TreeNode[]): Html {
  if (nodes.length === 0) return html``;
  const out: string[] = ['<ul class="tree">'];
  const todo: (TreeNode | string)[] = ['</ul>'];
  for (let i = nodes.length - 1; i >= 0; i--) todo.push(nodes[i]);
  while (todo.length) {
    const n = todo.pop()!;
    if (typeof n === 'string') {
      out.push(n);
      continue;
    }
    out.push(
      html`<li><a href="${uiPaths.folder(p.human_id_prefix, n.folder.id)}">${n.folder.name}</a> <span class="count" title="cases in this folder">${n.direct}</span>${
        n.total !== n.direct ? html` <span class="muted">(${n.total} with subfolders)</span>` : ''
      }`.text,
    );
    if (n.children.length === 0) {
      out.push('</li>');
      continue;
    }
    out.push('<ul>');
    todo.push('</ul></li>');
    for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i]);
  }
  return new Html(out.join(''));
}

export function projectPage(env: PageEnv, ref: string): string {
  const p = projectOf(env.ctx, ref);
  const { roots: tree, nodes } = folderTree(env.ctx, p.id);
  const one = { limit: 1, offset: 0 };
  const groups = db.listStepGroups(env.ctx, p.id, one).total;
  const plans = db.listPlans(env.ctx, p.id, {}, one).total;
  const runs = db.listRuns(env.ctx, p.id, {}, one).total;
  const cases = tree.reduce((a, n) => a + n.total, 0);
  const base = projectPath(p);
  const body = html`${p.description ? html`<p class="pre">${p.description}</p>` : ''}
<ul class="totals">
<li><a href="${base}/step-groups">Step groups</a> <span class="count">${groups}</span></li>
<li><a href="${base}/plans">Test plans</a> <span class="count">${plans}</span></li>
<li><a href="${base}/runs">Test runs</a> <span class="count">${runs}</span></li>
<li>Test cases <span class="count">${cases}</span></li>
</ul>
<h2>Folders <span class="count" title="folders in the project">${nodes.size}</span></h2>
${tree.length ? html`<div class="card">${renderTree(p, tree)}</div>` : html`<p class="muted">No folders yet.</p>`}`;
  return frame(`${p.name} (${p.human_id_prefix})`, body, [home]);
}

/** The breadcrumbs from the top folder down to `folder`: one query however deep it lies. */
function folderChain(ctx: DbContext, p: ProjectRow, folder: FolderRow): Crumb[] {
  return db.folderAncestors(ctx, p.id, folder.id).map((f) => ({ label: f.name, href: uiPaths.folder(p.human_id_prefix, f.id) }));
}

export function folderPage(env: PageEnv, ref: string, folderId: string, page: number): string {
  const p = projectOf(env.ctx, ref);
  const folder = db.findFolder(env.ctx, p.id, folderId);
  if (!folder) throw missing(`No folder ${folderId} in ${p.human_id_prefix}`);
  const list = db.listFolderCases(env.ctx, folder.id, pageRequest(page));
  const chain = folderChain(env.ctx, p, folder);
  const base = uiPaths.folder(p.human_id_prefix, folder.id);
  const sub = folderTree(env.ctx, p.id).nodes.get(folder.id)?.children ?? [];
  const body = html`${sub.length ? html`<h2>Subfolders</h2><div class="card">${renderTree(p, sub)}</div><h2>Cases <span class="count">${list.total}</span></h2>` : ''}
${listTable(
  [{ label: 'Id' }, { label: 'Title' }, { label: 'Steps' }, { label: 'Updated' }],
  list.items.map((c) => {
    const href = uiPaths.testCase(p.human_id_prefix, c.human_id);
    return [html`<a href="${href}">${c.human_id}</a>`, html`<a href="${href}">${c.title}</a>`, c.step_count, when(c.updated_at)];
  }),
)}
${list.total === 0 ? html`<p class="muted">No cases directly in this folder.</p>` : ''}
${pager(base, page, list.total)}`;
  return frame(folder.name, body, [home, projectCrumb(p), ...chain.slice(0, -1)]);
}

function lookupName(ctx: DbContext, kind: db.LookupKind, id: string): string {
  return db.findLookup(ctx, kind, id)?.name ?? id;
}

const UI_RANK: Record<FieldKind, number> = { lookup: 0, user: 1, labels: 2, template: 3, text: 4, steps: 5 };
/** The case's fields as the page shows them: references, then the template and the texts (the steps have their own list). */
const UI_FIELDS = [...CASE_FIELDS].filter((f) => f.kind !== 'steps').sort((a, b) => UI_RANK[a.kind] - UI_RANK[b.kind]);

/** One `<dt>/<dd>` per field (empty for a field of a template the case does not hold text for). */
function caseFieldRows(
  c: db.CaseRow,
  label: (id: string) => string,
  lookup: (kind: db.LookupKind, id: string) => string,
  user: (id: string) => string,
): (Html | string)[] {
  return UI_FIELDS.map((f) => {
    const value = fieldOf<unknown>(c, f, 'wire');
    const shown =
      f.kind === 'lookup'
        ? lookup(f.list!, value as string)
        : f.kind === 'user'
          ? user(value as string)
          : f.kind === 'labels'
            ? (value as string[]).map(label).join(', ') || '—'
            : f.kind === 'template'
              ? (value as string)
              : f.template === undefined
                ? (value as string) || '—'
                : (value as string);
    return f.template !== undefined && !value ? '' : html`<dt>${f.label}</dt><dd>${shown}</dd>`;
  });
}

function userName(users: Map<string, db.UserRow>, id: string | null): string {
  if (!id) return '—';
  const u = users.get(id);
  return u ? `${`${u.first_name} ${u.last_name}`.trim() || u.email} <${u.email}>` : id;
}

export function casePage(env: PageEnv, ref: string, caseRef: string): string {
  const { ctx } = env;
  const p = projectOf(ctx, ref);
  const c = db.findCase(ctx, p.id, caseRef);
  if (!c) throw missing(`No case ${caseRef} in ${p.human_id_prefix}`);
  const steps = db.caseSteps(ctx, c.id);
  const folder = db.findFolder(ctx, p.id, c.folder_id);
  const users = new Map(db.listUsers(ctx).map((u) => [u.id, u]));
  const labels = new Map(db.listLabels(ctx).map((l) => [l.id, l.name]));
  const groups = new Map<string, db.StepGroupRow | undefined>();
  const groupOf = (id: string) => {
    if (!groups.has(id)) groups.set(id, db.findStepGroup(ctx, p.id, id));
    return groups.get(id);
  };
  const field = (label: string, value: Html | string) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const body = html`<div class="card"><dl class="fields">
${field('Id', c.human_id)}
${field('Folder', folder ? html`<a href="${uiPaths.folder(p.human_id_prefix, folder.id)}">${folder.name}</a>` : c.folder_id)}
${caseFieldRows(c, (id) => labels.get(id) ?? id, (kind, id) => lookupName(ctx, kind, id), (id) => userName(users, id)).map((row) => html`${row}\n`)}${field('Created', when(c.created_at))}
${field('Updated', when(c.updated_at))}
</dl></div>
<h2>Steps <span class="count">${steps.length}</span></h2>
${steps.length === 0 ? html`<p class="muted">No individual steps.</p>` : ''}
<ol class="steps">${steps.map((s) => {
    const g = s.step_group_id ? groupOf(s.step_group_id) : undefined;
    return html`<li${s.step_group_id ? html` class="from-group"` : ''}>${
      s.step_group_id
        ? html`<span class="step-group-mark">From step group ${
            g ? html`<a href="${uiPaths.stepGroup(p.human_id_prefix, g.human_id)}">${g.human_id}: ${g.title}</a>` : s.step_group_id
          }</span><br>`
        : ''
    }<div class="pre">${s.step_description}</div>${s.expected_results ? html`<div class="muted pre">Expected: ${s.expected_results}</div>` : ''}</li>`;
  })}</ol>`;
  const crumbs = [home, projectCrumb(p), ...(folder ? folderChain(ctx, p, folder) : [])];
  return frame(`${c.human_id}: ${c.title}`, body, crumbs);
}

export function stepGroupsPage(env: PageEnv, ref: string, page: number): string {
  const p = projectOf(env.ctx, ref);
  const list = db.listStepGroups(env.ctx, p.id, pageRequest(page));
  const body = html`${listTable(
    [{ label: 'Id' }, { label: 'Title' }, { label: 'Description', cls: 'pre' }],
    list.items.map((g) => {
      const href = uiPaths.stepGroup(p.human_id_prefix, g.human_id);
      return [html`<a href="${href}">${g.human_id}</a>`, html`<a href="${href}">${g.title}</a>`, g.description || '—'];
    }),
  )}
${list.total === 0 ? html`<p class="muted">No step groups yet.</p>` : ''}
${pager(`${projectPath(p)}/step-groups`, page, list.total)}`;
  return frame('Step groups', body, [home, projectCrumb(p)]);
}

export function stepGroupPage(env: PageEnv, ref: string, groupRef: string): string {
  const p = projectOf(env.ctx, ref);
  const g = db.findStepGroup(env.ctx, p.id, groupRef);
  if (!g) throw missing(`No step group ${groupRef} in ${p.human_id_prefix}`);
  const steps = db.groupSteps(env.ctx, g.id);
  const body = html`${g.description ? html`<p class="pre">${g.description}</p>` : ''}
<ol class="steps">${steps.map((s) => html`<li><div class="pre">${s.step_description}</div>${s.expected_results ? html`<div class="muted pre">Expected: ${s.expected_results}</div>` : ''}</li>`)}</ol>`;
  return frame(`${g.human_id}: ${g.title}`, body, [home, projectCrumb(p), { label: 'Step groups', href: `${projectPath(p)}/step-groups` }]);
}

export function plansPage(env: PageEnv, ref: string, page: number): string {
  const p = projectOf(env.ctx, ref);
  const list = db.listPlans(env.ctx, p.id, {}, pageRequest(page));
  const body = html`${listTable(
    [{ label: 'Id' }, { label: 'Title' }, { label: 'Status' }, { label: 'Start' }, { label: 'End' }],
    list.items.map((t) => {
      const href = uiPaths.testPlan(p.human_id_prefix, t.human_id);
      return [html`<a href="${href}">${t.human_id}</a>`, html`<a href="${href}">${t.title}</a>`, t.status, when(t.start_date), when(t.end_date)];
    }),
  )}
${list.total === 0 ? html`<p class="muted">No test plans yet.</p>` : ''}
${pager(`${projectPath(p)}/plans`, page, list.total)}`;
  return frame('Test plans', body, [home, projectCrumb(p)]);
}

/** A badge per result with the number of the run's cases that have it (`Passed: 2`, `No result: 1`). */
function resultCounts(ctx: DbContext, runId: string, list: 'results' | 'totals' = 'results'): Html {
  const counts = db.runStatusCounts(ctx, runId);
  return html`<ul class="${list}" aria-label="results per status">${counts.map(
    (c) => html`<li><span class="badge ${statusClass(c.status_name)}">${c.status_name ?? 'No result'}: ${c.n}</span></li>`,
  )}</ul>`;
}

function runsTable(ctx: DbContext, p: ProjectRow, runs: db.RunRow[]): Html {
  return listTable(
    [{ label: 'Id' }, { label: 'Title' }, { label: 'Status' }, { label: 'Cases' }, { label: 'Results' }, { label: 'Created' }],
    runs.map((r) => {
      const href = uiPaths.testRun(p.human_id_prefix, r.human_id);
      return [html`<a href="${href}">${r.human_id}</a>`, html`<a href="${href}">${r.title}</a>`, r.status, r.test_cases_count, resultCounts(ctx, r.id), when(r.created_at)];
    }),
  );
}

/**
 * Settles the execution runs that have finished, so that their test runs show their results and
 * are closed however they are reached (not only through the execution run's own page).
 */
function settleFinished(env: PageEnv): void {
  for (const e of db.unsettledExecutions(env.ctx)) {
    if (executionPhase(e, env.now(), env.runDurationMs) === 'STATUS_COMPLETED') settleExecution(env.ctx, e);
  }
}

export function planPage(env: PageEnv, ref: string, planRef: string, page: number): string {
  const p = projectOf(env.ctx, ref);
  const t = db.findPlan(env.ctx, p.id, planRef);
  if (!t) throw missing(`No test plan ${planRef} in ${p.human_id_prefix}`);
  settleFinished(env);
  const runs = db.listRuns(env.ctx, p.id, { planId: t.id }, pageRequest(page));
  const body = html`<div class="card"><dl class="fields">
<dt>Status</dt><dd>${t.status}</dd>
<dt>Start</dt><dd>${when(t.start_date)}</dd>
<dt>End</dt><dd>${when(t.end_date)}</dd>
<dt>Completed</dt><dd>${when(t.completed_at)}</dd>
<dt>Description</dt><dd>${t.description || '—'}</dd>
</dl></div>
<h2>Test runs <span class="count">${runs.total}</span></h2>
${runsTable(env.ctx, p, runs.items)}
${pager(uiPaths.testPlan(p.human_id_prefix, t.human_id), page, runs.total)}`;
  return frame(`${t.human_id}: ${t.title}`, body, [home, projectCrumb(p), { label: 'Test plans', href: `${projectPath(p)}/plans` }]);
}

export function runsPage(env: PageEnv, ref: string, page: number): string {
  const p = projectOf(env.ctx, ref);
  settleFinished(env);
  const list = db.listRuns(env.ctx, p.id, {}, pageRequest(page));
  const body = html`${runsTable(env.ctx, p, list.items)}
${list.total === 0 ? html`<p class="muted">No test runs yet.</p>` : ''}
${pager(`${projectPath(p)}/runs`, page, list.total)}`;
  return frame('Test runs', body, [home, projectCrumb(p)]);
}

export function runPage(env: PageEnv, ref: string, runRef: string, page: number): string {
  const { ctx } = env;
  const p = projectOf(ctx, ref);
  settleFinished(env);
  const r = db.findRun(ctx, p.id, runRef);
  if (!r) throw missing(`No test run ${runRef} in ${p.human_id_prefix}`);
  const rows = db.runCasesPage(ctx, r.id, pageRequest(page));
  const plan = r.test_plan_id ? db.findPlan(ctx, p.id, r.test_plan_id) : undefined;
  const users = new Map(db.listUsers(ctx).map((u) => [u.id, u]));
  const files = db.runAttachments(ctx, r.id);
  const filesOf = (caseId: string) => attachmentList(files.get(caseId) ?? [], (a) => uiPaths.attachment(p.human_id_prefix, r.human_id, a.id));
  const body = html`<div class="card"><dl class="fields">
<dt>Status</dt><dd>${r.status}</dd>
<dt>Test plan</dt><dd>${plan ? html`<a href="${uiPaths.testPlan(p.human_id_prefix, plan.human_id)}">${plan.human_id}: ${plan.title}</a>` : '—'}</dd>
<dt>Created</dt><dd>${when(r.created_at)}</dd>
${r.description ? html`<dt>Description</dt><dd>${r.description}</dd>` : ''}
</dl></div>
<h2>Results <span class="count">${r.test_cases_count}</span></h2>
${resultCounts(ctx, r.id, 'totals')}
${listTable(
  [{ label: 'Case' }, { label: 'Title' }, { label: 'Result' }, { label: 'Assignee' }, { label: 'Comment', cls: 'pre' }, { label: 'Attachments' }],
  rows.items.map((x) => [
    html`<a href="${uiPaths.testCase(p.human_id_prefix, x.human_id)}">${x.human_id}</a>`,
    x.title,
    html`<span class="badge ${statusClass(x.status_name)}">${x.status_name ?? 'No result'}</span>`,
    userName(users, x.user_id),
    x.description || '—',
    filesOf(x.case_id),
  ]),
)}
${pager(uiPaths.testRun(p.human_id_prefix, r.human_id), page, rows.total)}`;
  return frame(`${r.human_id}: ${r.title}`, body, [home, projectCrumb(p), { label: 'Test runs', href: `${projectPath(p)}/runs` }]);
}

/** Image types a browser shows inline; any other file (SVG too: it may hold script) is a download. */
export const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp']);

/** A run case's files: images shown (linked to the file), the others as download links. */
function attachmentList(files: readonly db.AttachmentRow[], href: (a: db.AttachmentRow) => string): Html | string {
  if (files.length === 0) return '—';
  const items = files.map((a) =>
    INLINE_IMAGE_TYPES.has(a.media_type)
      ? html`<li><a href="${href(a)}"><img class="attachment" src="${href(a)}" alt="${a.file_name}"></a></li>`
      : html`<li><a href="${href(a)}" download="${a.file_name}">${a.file_name}</a> <span class="muted">(${sizeText(a.size)})</span></li>`,
  );
  return html`<ul class="attachments">${items}</ul>`;
}

function sizeText(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A stored file of a run's case, for the UI's file route; 404 when the run does not hold it. */
export function attachmentFile(env: PageEnv, ref: string, runRef: string, id: string): db.AttachmentRow & { body: Buffer } {
  const p = projectOf(env.ctx, ref);
  const r = db.findRun(env.ctx, p.id, runRef);
  const a = r ? db.attachmentBody(env.ctx, id) : undefined;
  if (!r || !a || a.run_id !== r.id) throw missing(`No attachment ${id} in ${runRef}`);
  return a;
}

interface ExecutionView {
  e: ExecutionRow;
  status: string;
  result: string;
  passed: number;
  failed: number;
  queued: number;
}

/** What `GET /api/v1/execution_results/:id` answers, for the UI; a completed run is settled as the API does. */
function viewOf(env: PageEnv, e: ExecutionRow): ExecutionView {
  const status = executionPhase(e, env.now(), env.runDurationMs);
  const done = status === 'STATUS_COMPLETED';
  if (done) settleExecution(env.ctx, e);
  return {
    e,
    status,
    result: done ? e.result : 'QUEUED',
    passed: done ? e.total - e.failed : 0,
    failed: done ? e.failed : 0,
    queued: done ? 0 : e.total,
  };
}

const badge = (s: string) => html`<span class="badge ${statusClass(s)}">${s}</span>`;

export function executionsPage(env: PageEnv, page: number): string {
  const list = db.listExecutions(env.ctx, pageRequest(page));
  const body = html`<p class="muted">Runs started through the execution interface (<code>tmsync run trigger</code>).</p>
${listTable(
  [{ label: 'Run' }, { label: 'Build' }, { label: 'Status' }, { label: 'Result' }, { label: 'Total' }, { label: 'Passed' }, { label: 'Failed' }],
  list.items.map((e) => {
    const v = viewOf(env, e);
    return [html`<a href="${uiPaths.execution(e.id)}">#${e.id}</a>`, e.build_no || '—', badge(v.status), badge(v.result), e.total, v.passed, v.failed];
  }),
)}
${list.total === 0 ? html`<p class="muted">No runs yet.</p>` : ''}
${pager('/ui/runs', page, list.total)}`;
  return frame('Execution runs', body, [home]);
}

export function executionPage(env: PageEnv, idText: string): string {
  const id = /^\d{1,15}$/.test(idText) ? Number(idText) : NaN;
  const e = Number.isSafeInteger(id) && id > 0 ? db.findExecution(env.ctx, id) : undefined;
  if (!e) throw missing(`No execution run ${idText}`);
  const v = viewOf(env, e);
  const p = db.findProject(env.ctx, e.project_id);
  const plan = db.findPlanAnywhere(env.ctx, e.plan_id);
  const run = p && e.run_id ? db.findRun(env.ctx, p.id, e.run_id) : undefined;
  const body = html`<div class="card"><dl class="fields">
<dt>Status</dt><dd>${badge(v.status)}</dd>
<dt>Result</dt><dd>${badge(v.result)}</dd>
<dt>Project</dt><dd>${p ? html`<a href="${projectPath(p)}">${p.name}</a>` : e.project_id}</dd>
<dt>Test plan</dt><dd>${p && plan ? html`<a href="${uiPaths.testPlan(p.human_id_prefix, plan.human_id)}">${plan.human_id}: ${plan.title}</a>` : e.plan_id}</dd>
<dt>Test run</dt><dd>${p && run ? html`<a href="${uiPaths.testRun(p.human_id_prefix, run.human_id)}">${run.human_id}: ${run.title}</a>` : '—'}</dd>
<dt>Build</dt><dd>${e.build_no || '—'}</dd>
<dt>Environment</dt><dd>${e.environment_id ?? '—'}</dd>
<dt>Started</dt><dd>${when(Math.floor(e.started_ms / 1000))}</dd>
</dl></div>
<ul class="totals" aria-label="counts">
<li><span class="badge">Total: ${e.total}</span></li>
<li><span class="badge st-passed">Passed: ${v.passed}</span></li>
<li><span class="badge st-failed">Failed: ${v.failed}</span></li>
<li><span class="badge st-queued">Queued: ${v.queued}</span></li>
</ul>`;
  return frame(`Execution run #${e.id}`, body, [home, { label: 'Execution runs', href: '/ui/runs' }]);
}

export function notFoundPage(message: string, signedIn: boolean): string {
  return layout('Not found', html`<p>${message}.</p><p><a href="/ui/">Back to the projects</a></p>`, { signedIn, crumbs: [home] });
}
