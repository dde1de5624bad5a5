import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  CreateFolderBody,
  CreateTestPlanBody,
  UpdateRunCasesBody,
  endpoints,
  isEndpointName,
  type BodyOf,
  type EndpointName,
  type ItemOf,
  type ListEndpointName,
  type LookupListName,
  type ParamName,
  type ResponseOf,
  type RunCaseListItem,
  type TestCase,
  type User,
} from '../../src/api/index.js';
import type { RequestDescriptor } from '../../src/apply/operation-requests.js';
import type { EndpointContext } from '../../src/emulator/http.js';
import { createClient, type ClientResponseOf, type TmsClient } from '../../src/remote/index.js';

/**
 * The wire contract is typed from the endpoint table: these tests fail to compile (`npm run
 * typecheck`) when a misspelt name, a wrong body field or a wrong derived type gets through, and
 * check at run time what the types stand for.
 */

/** Calls that must not compile; never run (the client points nowhere). */
function typeErrors(client: TmsClient): void {
  // @ts-expect-error a misspelt endpoint name
  void client.call('getTestCse');
  // @ts-expect-error a body field the createTestPlan schema does not have
  void client.call('createTestPlan', { params: { project_id: 'p' }, body: { titel: 'Release' } });
  // @ts-expect-error a body value of the wrong type
  void client.call('createFolder', { params: { project_id: 'p' }, body: { name: 42 } });
  // @ts-expect-error a body without a field the schema requires
  void client.call('updateRunCases', { params: { project_id: 'p', test_run_id: 'r' }, body: {} });
  // @ts-expect-error a body for an endpoint that takes none
  void client.call('getProject', { params: { project_id: 'p' }, body: { name: 'x' } });
  // @ts-expect-error a filter on a field the list does not filter on
  void client.paginate('listTestCases', { params: { project_id: 'p' }, query: { owner__EQ: 'x' } });
  // @ts-expect-error paginate reads lists only
  void client.paginate('getTestCase', { params: { project_id: 'p', test_case_id: 'c' } });
  // @ts-expect-error an unknown per-call override
  void client.call('listLabels', {}, { retry: 2 });
  // @ts-expect-error an apply request's body is its endpoint's
  const wrong: RequestDescriptor = { endpoint: 'createFolder', params: { project_id: 'p' }, body: { nam: 'x' } };
  void wrong;
}

describe('the typed endpoint table', () => {
  it('refuses a misspelt endpoint name: a compile error, and unknown_endpoint at run time', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: 'k', maxRetries: 0 });
    try {
      expect(typeof typeErrors).toBe('function');
      // @ts-expect-error a misspelt endpoint name does not compile
      const err = await client.call('getTestCse').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'unknown_endpoint' });
    } finally {
      await client.close();
    }
  });

  it('names every endpoint of the table, and only those', () => {
    expect(endpoints.map((e) => e.name).every(isEndpointName)).toBe(true);
    expect(isEndpointName('getTestCse')).toBe(false);
    expectTypeOf<'getTestCase'>().toExtend<EndpointName>();
    expectTypeOf<'getTestCse'>().not.toExtend<EndpointName>();
  });

  it('derives body types from the request schemas: what a schema refuses does not compile either', () => {
    expectTypeOf<BodyOf<'createTestPlan'>>().toEqualTypeOf<z.input<typeof CreateTestPlanBody>>();
    expectTypeOf<BodyOf<'getProject'>>().toBeNever();
    expect(CreateTestPlanBody.safeParse({ titel: 'Release' }).success).toBe(false);
    expect(CreateFolderBody.safeParse({ name: 42 }).success).toBe(false);
    expect(UpdateRunCasesBody.safeParse({}).success).toBe(false);
  });

  it('derives response, list item and path parameter types from the table', () => {
    expectTypeOf<ResponseOf<'getTestCase'>['data']['test_case']>().toEqualTypeOf<TestCase>();
    expectTypeOf<ItemOf<'listTestCases'>>().toEqualTypeOf<TestCase>();
    expectTypeOf<ParamName<'moveFolder'>>().toEqualTypeOf<'project_id' | 'folder_id'>();
    expectTypeOf<'listFolders'>().toExtend<ListEndpointName>();
    expectTypeOf<'getFolder'>().not.toExtend<ListEndpointName>();
    expectTypeOf<LookupListName>().toEqualTypeOf<'listCaseTypes' | 'listCaseStatuses' | 'listPriorities' | 'listAutomationTypes' | 'listRunStatuses'>();
    const lists = endpoints.filter((e) => e.name.startsWith('list') && e.response && 'page_info' in (e.response as z.ZodObject).shape);
    expect(lists.map((e) => e.name)).toContain('listFolders');
  });

  it("types a run's case list as an array, the shape the client hands out for both dialects", () => {
    expectTypeOf<ClientResponseOf<'listRunCases'>['data']['test_cases']>().toEqualTypeOf<RunCaseListItem[]>();
    expectTypeOf<ClientResponseOf<'listUsers'>['data']>().toEqualTypeOf<User[]>();
    expect(endpoints.find((e) => e.name === 'listRunCases')?.response?.safeParse({ data: { test_cases: [{ id: 'c', name: 'n', status: 'PASSED' }] } }).success).toBe(true);
  });

  it("gives each emulator handler its endpoint's parsed body, query and params", () => {
    expectTypeOf<EndpointContext<'createFolder'>['body']>().toEqualTypeOf<z.output<typeof CreateFolderBody>>();
    expectTypeOf<EndpointContext<'moveFolder'>['params']>().toEqualTypeOf<Record<'project_id' | 'folder_id', string>>();
    expectTypeOf<EndpointContext<'listTestRuns'>['query']['test_plan_id']>().toEqualTypeOf<string | undefined>();
    expect(endpoints.filter((e) => e.body).length).toBeGreaterThan(10);
  });
});
