import { z } from 'zod';
import {
  LiveRunCaseListItem,
  RunCaseListItem,
  User,
  endpoint,
  type EndpointName,
  type ListEndpointName,
  type ResponseOf,
} from '../api/index.js';

/**
 * Where the live service answered in a shape the shared table does not accept, the client reads
 * both and hands callers the document's shape (keeping the live fields too).
 */

/** `data.test_cases[]` (document) or `data.test_run_cases[]` with an embedded `test_case` (live). */
const RunCasesResponse = z
  .looseObject({
    message: z.string().optional(),
    data: z.looseObject({
      test_cases: z.array(RunCaseListItem).optional(),
      test_run_cases: z.array(LiveRunCaseListItem).optional(),
    }),
  })
  .refine((r) => r.data.test_cases !== undefined || r.data.test_run_cases !== undefined, {
    message: 'expected data.test_cases or data.test_run_cases',
  })
  .transform((r) => {
    const test_cases: RunCaseListItem[] =
      r.data.test_cases ??
      (r.data.test_run_cases ?? []).map((x) => ({
        ...x,
        id: x.test_case.id,
        ...(x.test_case.human_id !== undefined ? { human_id: x.test_case.human_id } : {}),
        name: x.test_case.title ?? '',
        // the document's status word (PASSED, IN_PROGRESS, UNTESTED) from the live status name
        status: x.status ? x.status.toUpperCase().replace(/[^A-Z0-9]+/g, '_') : 'UNTESTED',
        assignee_id: x.assignee_id,
      }));
    return { ...r, data: { ...r.data, test_cases } };
  });

/** `data` as a bare array (live) or `data.users[]`. */
const UsersResponse = z
  .looseObject({
    message: z.string().optional(),
    data: z.union([z.array(User), z.looseObject({ users: z.array(User) })]),
  })
  .transform((r) => ({ ...r, data: Array.isArray(r.data) ? r.data : r.data.users }));

const overrides = {
  listRunCases: RunCasesResponse,
  listUsers: UsersResponse,
} satisfies { [N in EndpointName]?: z.ZodType };
type Overrides = typeof overrides;

/** What `client.call(name)` resolves to: the endpoint's parsed answer, or the override's. */
export type ClientResponseOf<N extends EndpointName> = N extends keyof Overrides ? z.output<Overrides[N]> : ResponseOf<N>;

/** The schema the client parses an endpoint's answer with. */
export function responseSchema(name: EndpointName): z.ZodType | undefined {
  const byName: { [N in EndpointName]?: z.ZodType } = overrides;
  return byName[name] ?? endpoint(name).response;
}

/** The key of `data` that holds a paginated list's items (`folders`, `test_cases`, …). */
export function listKey(name: ListEndpointName): string {
  const schema = endpoint(name).response;
  const data: unknown = schema instanceof z.ZodObject ? schema.shape.data : undefined;
  const keys = data instanceof z.ZodObject ? Object.keys(data.shape) : [];
  if (keys.length !== 1) throw new Error(`endpoint ${name} is not a paginated list`);
  return keys[0];
}
