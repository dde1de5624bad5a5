import type { ApplyClient } from '../../src/apply/finders.js';
import { PLAN_FORMAT_VERSION, type Operation, type Plan } from '../../src/plan/operations.js';

/**
 * An in-memory service for executor tests of the edges (journal failures, ambiguous creates,
 * resume): folders and cases with their parents, every request recorded, and a `fault` hook that
 * can fail any request (creates, lists) — a thrown error with `ambiguous: true` is what the real
 * client throws after a create whose outcome is unknown.
 */
export interface FakeCall {
  endpoint: string;
  params?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: any;
}

export interface FakeServiceOptions {
  /** return an error to fail this request; `stored: true` stores a create before failing (ambiguous) */
  fault?: (call: FakeCall, n: number) => { error: Error; stored?: boolean } | undefined;
  /** real milliseconds each request takes @default 1 */
  delayMs?: number;
}

export type FakeService = ApplyClient & {
  calls: FakeCall[];
  folders: { id: string; name: string; parent_folder_id: string; order: number }[];
  cases: { id: string; human_id: string; title: string; folder_id: string }[];
  /** requests in flight right now */
  inFlight(): number;
};

export function apiError(message: string, extra: { ambiguous?: boolean; code?: string } = {}): Error {
  return Object.assign(new Error(message), { code: extra.code ?? 'server_error', ambiguous: extra.ambiguous ?? false });
}

export function fakeService(options: FakeServiceOptions = {}): FakeService {
  const calls: FakeCall[] = [];
  const folders: FakeService['folders'] = [];
  const cases: FakeService['cases'] = [];
  let n = 0;
  let inFlight = 0;

  async function once(call: FakeCall): Promise<any> {
    calls.push(call);
    inFlight++;
    try {
      await new Promise((r) => setTimeout(r, options.delayMs ?? 1));
      const fault = options.fault?.(call, calls.length);
      if (fault && !fault.stored) throw fault.error;
      let answer: any = { data: {} };
      switch (call.endpoint) {
        case 'createFolder': {
          const f = { id: `f${++n}`, name: call.body.name, parent_folder_id: '', order: 0 };
          folders.push(f);
          answer = { data: { folder: f } };
          break;
        }
        case 'moveFolder': {
          const f = folders.find((x) => x.id === call.params!.folder_id)!;
          f.parent_folder_id = call.body.parent_folder_id;
          answer = { data: { folder: f } };
          break;
        }
        case 'createTestCase': {
          const c = { id: `c${++n}`, human_id: `DEMO-${n}`, title: call.body.title, folder_id: call.body.folder_id };
          cases.push(c);
          answer = { data: { test_case: c } };
          break;
        }
      }
      if (fault) throw fault.error;
      return answer;
    } finally {
      inFlight--;
    }
  }

  return {
    calls,
    folders,
    cases,
    inFlight: () => inFlight,
    async call(endpoint, o = {}) {
      const call: FakeCall = { endpoint, params: o.params, query: o.query, body: o.body };
      try {
        return await once(call);
      } catch (err) {
        // like the real client: an ambiguous create asks the caller before sending again
        if (!(err as { ambiguous?: boolean }).ambiguous || !o.reconcile) throw err;
        const found = await o.reconcile();
        return found ?? (await once({ ...call }));
      }
    },
    // the fake's items carry only the fields the executor reads: typed loosely on purpose
    async *paginate(endpoint, o = {}): AsyncGenerator<any> {
      // one recorded list read per paginate call (the fake answers in one page)
      const query: Record<string, unknown> = { ...o.query };
      await once({ endpoint, params: o.params, query });
      if (endpoint === 'listFolders') yield* folders.map((f) => ({ ...f }));
      if (endpoint === 'listTestCases') {
        const folderId = query.folder_id;
        const search = query.search;
        yield* cases.filter((c) => (folderId === undefined || c.folder_id === folderId) && (search === undefined || c.title.includes(String(search))));
      }
    },
  };
}

export const planOf = (operations: Operation[]): Plan => ({
  format_version: PLAN_FORMAT_VERSION,
  project: { id: 'p1', name: 'Demo', humanIdPrefix: 'DEMO' },
  prune: false,
  operations,
  unmanaged: [],
  warnings: [],
  summary: { create: 0, update: 0, move: 0, delete: 0, adopt: 0 },
  contentHash: 'x',
  remoteVersions: {},
});

export const createFolderOp = (path: string[], parentKey?: string): Operation => ({
  kind: 'create_folder',
  key: `folder:${path.join('/')}`,
  dependsOn: parentKey ? [parentKey] : [],
  path,
  name: path[path.length - 1],
  parent: parentKey ? { op: parentKey } : null,
  writeBack: { file: `cases/${path.join('/')}/_folder.yaml` },
});

export const createCaseOp = (file: string, folder: { op: string } | { id: string }, title = file): Operation => ({
  kind: 'create_case',
  key: `case:${file}`,
  dependsOn: 'op' in folder ? [folder.op] : [],
  path: [],
  body: { title, folder },
  writeBack: { file },
});

export function writeBackRecorder() {
  const written: Record<string, string> = {};
  return { written, writeBack: async (file: string, id: string) => void (written[file] = id) };
}
