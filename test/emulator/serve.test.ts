import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import { memoryIo } from '../../src/cli/io.js';
import { TmsyncError } from '../../src/errors.js';

const LISTEN = /^tmsync emulator listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;

describe('tmsync serve', () => {
  it('prints the listening line first, then the generated key, serves with that key and stops when signalled', async () => {
    const ac = new AbortController();
    const io = { ...memoryIo(), signal: ac.signal };
    const done = runServe({ port: '0', memory: true, seed: 'demo' }, io);
    for (let i = 0; i < 3000 && io.out.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const m = LISTEN.exec(io.out[0]);
    expect(m, io.out[0]).not.toBeNull();
    const key = /^api key: (\S+)$/.exec(io.out[1])?.[1];
    expect(key).toBeDefined();
    const r = await fetch(`${m![1]}/projects`, { headers: { authorization: `Bearer ${key}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).data.projects[0].human_id_prefix).toBe('DEMO');
    ac.abort();
    expect(await done).toBe(0);
    await expect(fetch(`${m![1]}/projects`)).rejects.toThrow();
  });

  it('prints no key line when keys are given', async () => {
    const ac = new AbortController();
    const io = { ...memoryIo(), signal: ac.signal };
    const done = runServe({ port: '0', memory: true, apiKey: ['given'] }, io);
    for (let i = 0; i < 3000 && io.out.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    expect(await done).toBe(0);
    expect(io.out).toHaveLength(1);
    expect(io.out.join('\n') + io.err.join('\n')).not.toContain('given');
  });

  it('answers in the live dialect with --dialect live (milliseconds, cursors capped by --page-size-cap) and says so', async () => {
    const ac = new AbortController();
    const io = { ...memoryIo(), signal: ac.signal };
    const done = runServe({ port: '0', memory: true, seed: 'demo', apiKey: ['k'], dialect: 'live', pageSizeCap: '1', rateLimit: '1000' }, io);
    for (let i = 0; i < 3000 && io.out.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const base = LISTEN.exec(io.out[0])![1];
    const res = await fetch(`${base}/test_cases/types?page_size=50`, { headers: { authorization: 'Bearer k' } });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = (await res.json()) as { data: { types: unknown[] }; page_info: { next: string | null } };
    expect(body.data.types).toHaveLength(1);
    expect(body.page_info.next).toMatch(/^[A-Za-z0-9+/=]+$/);
    // the live dialect takes only ids as :project_id: the list gives them
    const projects = (await (await fetch(`${base}/projects`, { headers: { authorization: 'Bearer k' } })).json()) as { data: { projects: { created_at: number }[] } };
    expect(String(projects.data.projects[0].created_at)).toMatch(/^\d{13}$/);
    ac.abort();
    expect(await done).toBe(0);
    expect(io.err.join('\n')).toContain('dialect: live');
  });

  it('ends every execution-interface run with the result --run-outcome names', async () => {
    const ac = new AbortController();
    const io = { ...memoryIo(), signal: ac.signal };
    const done = runServe({ port: '0', memory: true, seed: 'demo', apiKey: ['k'], runDuration: '0', runQueue: '0', runOutcome: 'aborted' }, io);
    for (let i = 0; i < 3000 && io.out.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const base = LISTEN.exec(io.out[0])![1];
    const call = async (method: string, url: string, body?: unknown) =>
      (await fetch(url, { method, headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;
    const plan = (await call('POST', `${base}/projects/DEMO/test_plans`, { title: 'Nightly' })).data.test_plan;
    const { id } = await call('POST', `${base.replace(/\/api\/v1$/, '')}/api/v1/execution_results`, { executionId: plan.execution_id });
    const status = await call('GET', `${base.replace(/\/api\/v1$/, '')}/api/v1/execution_results/${id}`);
    expect(status).toMatchObject({ status: 'STATUS_COMPLETED', result: 'ABORTED' });
    ac.abort();
    expect(await done).toBe(0);
  });

  it('refuses a --page-size-cap outside 1..100 naming the flag', async () => {
    const err = await runServe({ port: '0', memory: true, pageSizeCap: '0' }, memoryIo()).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('invalid_option');
    expect((err as TmsyncError).message).toContain('--page-size-cap');
  });

  it('refuses an out-of-range fault flag with a TmsyncError naming the flag', async () => {
    const err = await runServe({ port: '0', memory: true, failRate: '2' }, memoryIo()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmsyncError);
    expect((err as TmsyncError).code).toBe('invalid_option');
    expect((err as TmsyncError).message).toContain('--fail-rate');
  });

  it.runIf(existsSync('dist/cli/main.js'))('runs as a process: first stdout line, then exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/tmsync.js', 'serve', '--port', '0', '--memory', '--api-key', 'proc-key'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const m = LISTEN.exec(first);
    expect(m, first).not.toBeNull();
    expect((await fetch(`${m![1]}/users`, { headers: { authorization: 'Bearer proc-key' } })).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
