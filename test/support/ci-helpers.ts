import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findPlanAnywhere } from '../../src/emulator/db/index.js';
import type { startEmulator } from '../../src/emulator/index.js';
import { TEST_DIALECT } from '../dialect.js';
import { createClient, type TmsClient } from '../../src/remote/index.js';
import { resolveProject } from '../../src/remote/resolve-project.js';
import type { RemoteProject } from '../../src/model.js';
import { caseBody, type CaseRefs } from './cases.js';

export const KEY = 'test-key-ci';

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

/**
 * What `run trigger --test-plan` names a plan by in the dialect under test: the live service's
 * execution interface takes the plan's execution id, a number its management answers do not show
 * (a user copies it from the UI; the test reads it from the emulator's database); the document
 * dialect takes the plan's uuid too.
 */
export function executionRef(emu: Emulator, planId: string): string {
  if (TEST_DIALECT !== 'live') return planId;
  const plan = findPlanAnywhere(emu.db, planId);
  if (!plan) throw new Error(`no plan ${planId}`);
  return String(plan.execution_id);
}

/** A client for test set-up: fast, no rate limit worth the name. */
export function setupClient(emu: Emulator): TmsClient {
  return createClient({ baseUrl: emu.baseUrl, appUrl: emu.appUrl, apiKey: KEY, rateLimit: 1000, concurrency: 8, retryBaseMs: 1 });
}

async function first<T>(it: AsyncIterable<T>): Promise<T> {
  for await (const x of it) return x;
  throw new Error('empty list');
}

/** Creates `count` cases in the demo project, in order, so their human ids are DEMO-1 … DEMO-<count>. */
export async function seedCases(client: TmsClient, count: number): Promise<{ project: RemoteProject; caseIds: string[] }> {
  const project = await resolveProject(client, 'DEMO');
  const p = { project_id: project.id };
  const [types, statuses, priorities, automation_types] = await Promise.all([
    first(client.paginate('listCaseTypes')),
    first(client.paginate('listCaseStatuses')),
    first(client.paginate('listPriorities')),
    first(client.paginate('listAutomationTypes')),
  ]);
  const owner = (await client.call('listUsers')).data[0];
  const refs: CaseRefs = { lookups: { types: types.id, statuses: statuses.id, priorities: priorities.id, automation_types: automation_types.id }, user: owner.id };
  const folder = (await client.call('createFolder', { params: p, body: { name: 'Checkout' } })).data.folder;
  const caseIds: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await client.call('createTestCase', {
      params: p,
      body: caseBody(refs, { title: `Checkout case ${i}`, folder_id: folder.id }),
    });
    if (res.data.test_case.human_id !== `DEMO-${i}`) throw new Error(`expected DEMO-${i}, got ${res.data.test_case.human_id}`);
    caseIds.push(res.data.test_case.id);
  }
  return { project, caseIds };
}

/** human id → status word, read back through the run's case list. */
export async function runStatuses(client: TmsClient, projectId: string, runId: string): Promise<Record<string, string>> {
  const res = await client.call('listRunCases', { params: { project_id: projectId, test_run_id: runId } });
  const out: Record<string, string> = {};
  // the document's status word (PASSED) or the live status name (Passed, null when untested), as one word
  const word = (s: string | null | undefined) => (s ? s.toUpperCase().replace(/[^A-Z0-9]+/g, '_') : 'UNTESTED');
  for (const c of res.data.test_cases as unknown as Array<{ human_id?: string; id: string; status: string | null }>) out[c.human_id ?? c.id] = word(c.status);
  return out;
}

export interface SeenRequest {
  method: string;
  url: string;
  contentType?: string;
}

/**
 * A scripted HTTP proxy in front of the emulator: records each request's method, path and
 * content type, and lets a test answer some requests itself (injected faults).
 */
export async function startProxy(
  targetOrigin: string,
  intercept?: (req: IncomingMessage, n: number) => { status: number; body: string } | undefined,
): Promise<{ origin: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const target = new URL(targetOrigin);
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'] });
    const answer = intercept?.(req, seen.length);
    if (answer) {
      req.resume();
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
      return;
    }
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
