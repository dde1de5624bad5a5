import type * as W from '../api/resources.js';
import { CASE_FIELDS_BY_KIND, fieldOf, setField, STEP_GROUP_FIELDS } from '../fields.js';
import type { RemoteGroupStep, RemoteProject, RemoteStep } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { withoutCredentials } from '../url-credentials.js';
import { normalizeTimestamp, toRemoteCase, toRemoteFolder, toRemoteStepGroup } from '../remote/to-actual.js';
import type {
  BackupFolder,
  BackupHeader,
  BackupRunCase,
  BackupStepGroup,
  BackupTestCase,
  BackupTestPlan,
  BackupTestRun,
} from './backup-format.js';
import { BACKUP_FORMAT_VERSION, BACKUP_KIND } from './backup-format.js';
import { orderedMap } from '../streams.js';
import { fetchRestoreDirectory } from './restore-target.js';

/**
 * Where a backup's items come from, one section at a time, as they are read. The writer never
 * asks for a whole section at once, so memory stays flat however large the project is.
 */
export interface BackupSource {
  header(): Promise<BackupHeader>;
  folders(): AsyncIterable<BackupFolder>;
  stepGroups(): AsyncIterable<BackupStepGroup>;
  testCases(): AsyncIterable<BackupTestCase>;
  testPlans(): AsyncIterable<BackupTestPlan>;
  testRuns(): AsyncIterable<BackupTestRun>;
}

interface ClientBackupSourceOptions {
  /** recorded in the file as the source (never a key) */
  baseUrl: string;
  /** per-item reads in flight while a list is read @default 8 */
  readAhead?: number;
  /** the tmsync version recorded in the file */
  version: string;
  /** @default () => new Date() */
  now?: () => Date;
  signal?: AbortSignal;
}

const text = (s: string | null | undefined) => s ?? '';
const idOrNull = (s: string | null | undefined) => (s ? s : null);
const tsOrNull = (n: number | null | undefined) => (n === null || n === undefined ? null : normalizeTimestamp(n));
/** Drops keys whose value is undefined (strict schemas read absent, not undefined, back). */
function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** A case as a backup holds it: the model's values (src/remote/to-actual.ts) under the wire names of the field table. */
export function backupCase(w: W.TestCase, humanId?: string): BackupTestCase {
  const c = toRemoteCase(w);
  const out = { id: c.id, human_id: humanId ?? c.humanId, folder_id: c.folderId, title: c.title } as BackupTestCase;
  for (const f of CASE_FIELDS_BY_KIND) {
    const value = fieldOf<unknown>(c, f, 'remote');
    if (value === undefined) continue;
    setField(
      out,
      f,
      'wire',
      f.kind === 'steps'
        ? (value as RemoteStep[]).map((s) =>
            compact({ description: s.description, expected: s.expected, order: s.order, step_type: s.stepType, step_group_id: s.stepGroupId }),
          )
        : value,
    );
  }
  out.created_at = c.createdAt;
  out.updated_at = c.updatedAt;
  return out;
}

/** A step group as backed up: its fields under their wire names, as the step group table says. */
export function backupStepGroup(w: W.StepGroup): BackupStepGroup {
  const g = toRemoteStepGroup(w);
  const out = { id: g.id, human_id: g.humanId, title: g.title } as BackupStepGroup;
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'remote');
    if (value === undefined) continue;
    setField(
      out,
      f,
      'wire',
      f.kind === 'steps' ? (value as RemoteGroupStep[]).map((s) => ({ description: s.description, expected: s.expected, order: s.order })) : value,
    );
  }
  out.created_at = g.createdAt;
  out.updated_at = g.updatedAt;
  return out;
}

function backupPlan(w: W.TestPlan): BackupTestPlan {
  return {
    id: w.id,
    human_id: w.human_id ?? '',
    title: w.title,
    description: text(w.description),
    status: w.status,
    start_date: tsOrNull(w.start_date),
    end_date: tsOrNull(w.end_date),
    created_at: normalizeTimestamp(w.created_at),
    updated_at: normalizeTimestamp(w.updated_at),
  };
}

/** Run labels come as names (live) or as `{name}` objects; keep the names. */
function labelNamesOf(labels: unknown[] | undefined): string[] {
  return (labels ?? []).flatMap((l) =>
    typeof l === 'string' ? [l] : l && typeof l === 'object' && typeof (l as { name?: unknown }).name === 'string' ? [(l as { name: string }).name] : [],
  );
}

/** A run-case row in either form: the document's `{id, name, status, assignee_id}` or the live `{test_case, status_id, …}`. */
function backupRunCase(row: Record<string, unknown>): BackupRunCase {
  const nested = row.test_case as { id?: string } | undefined;
  const caseId = String(nested?.id ?? row.test_case_id ?? row.id);
  const status = typeof row.status === 'string' && row.status !== '' ? row.status : null;
  return compact({
    case_id: caseId,
    status,
    status_id: typeof row.status_id === 'string' ? idOrNull(row.status_id) : row.status_id === null ? null : undefined,
    assignee_id: typeof row.assignee_id === 'string' ? idOrNull(row.assignee_id) : null,
  });
}

function backupRun(w: W.TestRun, cases: BackupRunCase[]): BackupTestRun {
  const env = (w as { environment_ids?: unknown }).environment_ids;
  return {
    id: w.id,
    human_id: w.human_id ?? '',
    title: w.title,
    description: text(w.description),
    status: w.status,
    selection_type: w.selection_type ?? null,
    start_date: tsOrNull(w.start_date),
    end_date: tsOrNull(w.end_date),
    assignee_id: idOrNull(w.assignee_id),
    test_plan_id: idOrNull(w.test_plan_id),
    label_names: labelNamesOf(w.labels),
    environment_ids: Array.isArray(env) ? env.filter((e): e is string | number => typeof e === 'string' || typeof e === 'number') : [],
    created_at: normalizeTimestamp(w.created_at),
    updated_at: normalizeTimestamp(w.updated_at),
    cases,
  };
}

/** Reads a project through the client: lists page by page, per-item GETs only where a list leaves data out. */
export function clientBackupSource(client: TmsClient, project: RemoteProject, options: ClientBackupSourceOptions): BackupSource {
  const params = { project_id: project.id };
  const readAhead = options.readAhead ?? 8;
  const signal = options.signal;
  return {
    async header() {
      const {
        lookups: { types, statuses, priorities, automationTypes, runStatuses },
        users,
        labels,
      } = await fetchRestoreDirectory(client, signal);
      const entry = (e: { id: string; name: string; alias?: string; order?: number }) => compact({ ...e });
      return {
        format_version: BACKUP_FORMAT_VERSION,
        kind: BACKUP_KIND,
        created_at: (options.now ?? (() => new Date()))().toISOString(),
        tool: { name: 'tmsync', version: options.version },
        source: {
          base_url: withoutCredentials(options.baseUrl),
          project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix, description: project.description ?? '' },
        },
        lookups: {
          types: types.map(entry),
          statuses: statuses.map(entry),
          priorities: priorities.map(entry),
          automation_types: automationTypes.map(entry),
          run_statuses: runStatuses.map(entry),
        },
        users: users.map((u) => compact({ id: u.id, email: u.email, first_name: u.firstName, last_name: u.lastName })),
        labels,
      };
    },
    async *folders() {
      // lists are flat; an answer that nests children is flattened, each folder once
      const seen = new Set<string>();
      const visit = function* (f: W.FolderWire, parent: string | null): Generator<BackupFolder> {
        if (seen.has(f.id)) return;
        seen.add(f.id);
        const r = toRemoteFolder({ ...f, parent_folder_id: f.parent_folder_id || parent });
        yield { id: r.id, name: r.name, parent_id: r.parentId, order: r.order };
        for (const c of f.children ?? []) yield* visit(c, f.id);
      };
      for await (const f of client.paginate('listFolders', { params, signal })) yield* visit(f, null);
    },
    stepGroups() {
      return orderedMap(client.paginate('listStepGroups', { params, signal }), readAhead, async (g) =>
        backupStepGroup(
          g.steps ? g : { ...g, ...(await client.call('getStepGroup', { params: { ...params, step_group_id: g.id }, signal })).data.step_group },
        ),
      );
    },
    testCases() {
      return orderedMap(client.paginate('listTestCases', { params, signal }), readAhead, async (c) => {
        if (c.human_id) return backupCase(c);
        // the list left the human id out: the GET has it (it has no steps: those only come from lists)
        const full = (await client.call('getTestCase', { params: { ...params, test_case_id: c.id }, signal })).data.test_case;
        return backupCase({ ...full, ...c, human_id: c.human_id ?? full.human_id });
      });
    },
    async *testPlans() {
      for await (const p of client.paginate('listTestPlans', { params, signal })) yield backupPlan(p);
    },
    testRuns() {
      return orderedMap(client.paginate('listTestRuns', { params, signal }), readAhead, async (r) => {
        const res = await client.call('listRunCases', { params: { ...params, test_run_id: r.id }, signal });
        return backupRun(r, res.data.test_cases.map(backupRunCase));
      });
    },
  };
}
