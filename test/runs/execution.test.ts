import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../src/api/resources.js';
import { classifyResult, executionWords, formatCounts, parseRuntimeData, triggerExecution, type WaitClock, waitForExecution } from '../../src/runs/execution.js';
import { ApiError } from '../../src/remote/api-error.js';
import type { TmsClient } from '../../src/remote/client.js';

/** A clock whose sleeps only move time forward, recording each wait. */
function fakeClock(): WaitClock & { sleeps: number[]; t: number } {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

type Step = Partial<ExecutionResult> | ApiError;

/** A client whose getExecution answers from a script (the last step repeats); records calls. */
function scriptedClient(steps: Step[]) {
  const calls: { name: string; req: unknown }[] = [];
  let i = 0;
  const client = {
    async call(name: string, req: unknown) {
      calls.push({ name, req });
      if (name === 'triggerExecution') return { id: 4711, url: 'https://app.example/runs/4711' };
      const step = steps[Math.min(i++, steps.length - 1)];
      if (step instanceof ApiError) throw step;
      return { id: 4711, ...step };
    },
  } as unknown as TmsClient;
  return { client, calls };
}

const serverError = () => new ApiError({ code: 'server_error', status: 503, method: 'GET', path: '/api/v1/execution_results/4711' });

describe('the execution interface in words', () => {
  it('says statuses and results as people read them, and leaves other shapes alone', () => {
    expect(executionWords('STATUS_IN_PROGRESS')).toBe('in progress');
    expect(executionWords('STATUS_PRE_FLIGHT')).toBe('pre-flight');
    expect(executionWords('STATUS_COMPLETED')).toBe('completed');
    expect(executionWords('NOT_EXECUTED')).toBe('not executed');
    expect(executionWords('SUCCESS')).toBe('success');
    expect(executionWords('Passed')).toBe('Passed');
    expect(executionWords(undefined)).toBe('none');
  });
});

describe('waitForExecution', () => {
  it('polls through known and unknown intermediate statuses until STATUS_COMPLETED and reports a SUCCESS as passed', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([
      { status: 'STATUS_CREATED' },
      { status: 'STATUS_QUEUED' },
      { status: 'STATUS_WARMING_UP' },
      { status: 'STATUS_IN_PROGRESS' },
      { status: 'STATUS_COMPLETED', result: 'SUCCESS', totalCount: 3, passedCount: 3, failedCount: 0 },
    ]);
    const seen: string[] = [];
    const r = await waitForExecution(client, '4711', { clock, pollMs: 1000, onPoll: (run) => seen.push(run.status) });
    expect(r.outcome).toBe('passed');
    expect(r.polls).toBe(5);
    expect(seen).toEqual(['STATUS_CREATED', 'STATUS_QUEUED', 'STATUS_WARMING_UP', 'STATUS_IN_PROGRESS', 'STATUS_COMPLETED']);
  });

  it('grows the poll interval by 1.5 up to the 60 s ceiling', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([
      ...Array.from({ length: 9 }, () => ({ status: 'STATUS_IN_PROGRESS' })),
      { status: 'STATUS_COMPLETED', result: 'PASSED' },
    ]);
    await waitForExecution(client, '4711', { clock, pollMs: 10_000, timeoutMs: 3_600_000 });
    expect(clock.sleeps).toEqual([10_000, 15_000, 22_500, 33_750, 50_625, 60_000, 60_000, 60_000, 60_000]);
  });

  it('classifies every completed result other than SUCCESS/PASSED as failed, in either spelling', async () => {
    for (const result of ['FAILURE', 'FAILED', 'ABORTED', 'STOPPED', 'NOT_EXECUTED', undefined]) {
      const { client } = scriptedClient([{ status: 'STATUS_COMPLETED', result }]);
      const r = await waitForExecution(client, '4711', { clock: fakeClock() });
      expect(r.outcome, String(result)).toBe('failed');
    }
    expect(classifyResult('success')).toBe('passed');
    expect(classifyResult('PASSED')).toBe('passed');
  });

  it('stops at the deadline with a timeout, the last sleep cut to end exactly there', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([{ status: 'STATUS_IN_PROGRESS', totalCount: 4, passedCount: 1, failedCount: 0, queuedCount: 3 }]);
    const r = await waitForExecution(client, '4711', { clock, pollMs: 10_000, timeoutMs: 30_000 });
    expect(r.outcome).toBe('timeout');
    expect(clock.sleeps).toEqual([10_000, 15_000, 5_000]);
    expect(r.elapsedMs).toBe(30_000);
    expect(r.run?.status).toBe('STATUS_IN_PROGRESS');
    expect(formatCounts(r.run)).toBe('4 total, 1 passed, 0 failed, 3 queued');
  });

  it('survives transient failures between polls and counts them', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([
      { status: 'STATUS_IN_PROGRESS' },
      serverError(),
      new ApiError({ code: 'network', method: 'GET', path: '/x', cause: 'ECONNRESET' }),
      { status: 'STATUS_COMPLETED', result: 'SUCCESS' },
    ]);
    const errors: string[] = [];
    const r = await waitForExecution(client, '4711', { clock, pollMs: 100, onTransientError: (e) => errors.push(e.code) });
    expect(r.outcome).toBe('passed');
    expect(r.transientErrors).toBe(2);
    expect(errors).toEqual(['server_error', 'network']);
  });

  it('times out rather than failing when every poll hits a transient error', async () => {
    const { client } = scriptedClient([serverError()]);
    const r = await waitForExecution(client, '4711', { clock: fakeClock(), pollMs: 1000, timeoutMs: 5000 });
    expect(r.outcome).toBe('timeout');
    expect(r.run).toBeUndefined();
    expect(formatCounts(r.run)).toBe('no status was read');
  });

  it('ends with a timeout when a poll (and the client retrying it) is still hanging at the deadline', async () => {
    const hanging = {
      call: (_name: string, req: { signal?: AbortSignal }) =>
        new Promise((_, reject) => {
          req.signal?.addEventListener('abort', () => reject(new ApiError({ code: 'aborted', method: 'GET', path: '/x' })), { once: true });
        }),
    } as unknown as TmsClient;
    const r = await waitForExecution(hanging, '4711', { timeoutMs: 50, pollMs: 10 });
    expect(r.outcome).toBe('timeout');
    expect(r.polls).toBe(1);
  });

  it('passes a Ctrl-C through as an error instead of calling it a timeout', async () => {
    const ctrlC = new AbortController();
    const hanging = {
      call: (_name: string, req: { signal?: AbortSignal }) =>
        new Promise((_, reject) => {
          req.signal?.addEventListener('abort', () => reject(new ApiError({ code: 'aborted', method: 'GET', path: '/x' })), { once: true });
          ctrlC.abort();
        }),
    } as unknown as TmsClient;
    await expect(waitForExecution(hanging, '4711', { timeoutMs: 60_000, signal: ctrlC.signal })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('throws a non-transient failure (an unknown run) at once', async () => {
    const { client, calls } = scriptedClient([
      new ApiError({ code: 'not_found', status: 404, method: 'GET', path: '/api/v1/execution_results/4711' }),
    ]);
    await expect(waitForExecution(client, '4711', { clock: fakeClock() })).rejects.toMatchObject({ code: 'not_found' });
    expect(calls).toHaveLength(1);
  });
});

describe('triggerExecution', () => {
  it('sends a numeric plan (an execution id) and a numeric environment as numbers, the build and runtime data, and returns id and URL', async () => {
    const { client, calls } = scriptedClient([]);
    const run = await triggerExecution(client, {
      testPlanId: '12',
      environmentId: '3',
      buildNo: '1.4.0+77',
      runtimeData: parseRuntimeData(['browser=chromium', 'query=a=b']),
    });
    expect(run).toEqual({ id: '4711', url: 'https://app.example/runs/4711' });
    expect(calls[0]).toEqual({
      name: 'triggerExecution',
      req: {
        // the live service's own clients send executionId as a bare JSON number
        body: { executionId: 12, environmentId: 3, buildNo: '1.4.0+77', runtimeData: { browser: 'chromium', query: 'a=b' } },
        signal: undefined,
      },
    });
  });

  it('sends a plan named otherwise (a uuid) as it is', async () => {
    const { client, calls } = scriptedClient([]);
    await triggerExecution(client, { testPlanId: '8f0c0000-0000-4000-8000-000000000001' });
    expect((calls[0] as { req: { body: unknown } }).req.body).toEqual({ executionId: '8f0c0000-0000-4000-8000-000000000001' });
  });

  it('rejects runtime data that is not key=value', () => {
    expect(() => parseRuntimeData(['=x'])).toThrow(/not key=value/);
    expect(() => parseRuntimeData(['novalue'])).toThrow(/not key=value/);
  });
});
