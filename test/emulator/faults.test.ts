import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { isError, start } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('rate limit', () => {
  it('refuses the request over the per-key limit with 429 and Retry-After, and sends the x-tms-api headers', async () => {
    let clock = 1_800_000_000_000;
    const s = await start({ rateLimit: 2, now: () => clock });
    emu = s.emu;
    const a = await s.http.get('/projects');
    expect(a.status).toBe(200);
    expect(a.headers.get('x-tms-api-limit')).toBe('2');
    expect(a.headers.get('x-tms-api-remaining')).toBe('1');
    expect((await s.http.get('/projects')).status).toBe(200);
    const refused = await s.http.get('/projects');
    isError(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-tms-api-remaining')).toBe('0');
    clock += 1000;
    expect((await s.http.get('/projects')).status).toBe(200);
  });

  it('answers the live service\'s 500 "rate limit exceeded" without Retry-After in live style', async () => {
    const clock = 1_800_000_000_000;
    const s = await start({ rateLimit: 1, rateLimitStyle: 'live', now: () => clock });
    emu = s.emu;
    await s.http.get('/projects');
    const refused = await s.http.get('/projects');
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ message: 'rate limit exceeded' });
    expect(refused.headers.get('retry-after')).toBeNull();
  });
});

async function statuses(seed: number, n: number): Promise<number[]> {
  const s = await start({ failRate: 0.4, resetRate: 0.2, faultSeed: seed });
  try {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      try {
        out.push((await s.http.get('/projects')).status);
      } catch {
        out.push(0); // connection dropped
      }
    }
    return out;
  } finally {
    await s.emu.close();
  }
}

describe('random faults', () => {
  it('produce the same sequence of 500/503/dropped answers for the same --fault-seed', async () => {
    const a = await statuses(42, 30);
    const b = await statuses(42, 30);
    expect(a).toEqual(b);
    expect(a).toContain(200);
    expect(a.some((s) => s === 500 || s === 503)).toBe(true);
    expect(a).toContain(0);
    const c = await statuses(7, 30);
    expect(c).not.toEqual(a);
  });

  it('hit a write before it changes anything', async () => {
    const s = await start({ failRate: 1, faultSeed: 1 });
    emu = s.emu;
    const r = await s.http.post('/projects', { name: 'Never', human_id_prefix: 'NEVER' });
    expect([500, 503]).toContain(r.status);
    s.emu.setFaults({ failRate: 0 });
    const l = await s.http.get('/projects?name__CONTAINS=Never');
    expect(l.body.data.projects).toEqual([]);
  });

  it('store the change and then drop the connection under fail-after-commit, while reads still get answers', async () => {
    const s = await start({ resetRate: 1, failAfterCommit: true, faultSeed: 1 });
    emu = s.emu;
    await expect(s.http.post('/projects', { name: 'Ambiguous', human_id_prefix: 'AMB' })).rejects.toThrow();
    s.emu.setFaults({ resetRate: 0 });
    const l = await s.http.get('/projects?name__CONTAINS=Ambiguous');
    expect(l.body.data.projects.map((p: any) => p.human_id_prefix)).toEqual(['AMB']);
    const log = s.emu.requestLog();
    expect(log.find((e) => e.method === 'POST')).toMatchObject({ status: 0, fault: 'reset_after_commit' });
  });

  it('delay every authenticated request by at least --latency', async () => {
    const s = await start({ latencyMs: 40 });
    emu = s.emu;
    expect((await s.http.get('/projects')).status).toBe(200);
    // a lower bound only: the sleep guarantees it, however loaded the machine is
    expect(s.emu.requestLog().at(-1)!.duration_ms).toBeGreaterThanOrEqual(39);
    s.emu.setFaults({ latencyMs: 0 });
  });

  it('can be switched on and off at run time', async () => {
    const s = await start();
    emu = s.emu;
    expect((await s.http.get('/projects')).status).toBe(200);
    s.emu.setFaults({ failRate: 1, faultSeed: 3 });
    expect([500, 503]).toContain((await s.http.get('/projects')).status);
    s.emu.setFaults({ failRate: 0 });
    expect((await s.http.get('/projects')).status).toBe(200);
  });
});
