import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/executor.js';
import { Journal, journalPath } from '../../src/apply/journal.js';
import { createCaseOp, createFolderOp, fakeService, planOf, writeBackRecorder } from './fake-service.js';

const tmp = () => mkdtemp(join(tmpdir(), 'tmsync-journal-fail-'));

/** A journal writer that writes to the file until its Nth write, which fails like a full disk. */
function failingAt(root: string, nth: number) {
  let writes = 0;
  return async (text: string) => {
    writes++;
    if (writes >= nth) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const { appendFile } = await import('node:fs/promises');
    await appendFile(journalPath(root), text);
  };
}

/** How the promise settles; one that never settles fails the test at its timeout (no guess at how long is too long). */
async function settled<T>(p: Promise<T>): Promise<'resolved' | 'rejected'> {
  return p.then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );
}

describe('journal write failures', () => {
  it('rejects the failed entry and every later one at once, and close() ends', async () => {
    const root = await tmp();
    const j = await Journal.open(root, 'p1', { write: failingAt(root, 3) });
    await j.begin('case:a', 'create_case');
    await expect(j.begin('case:b', 'create_case')).rejects.toMatchObject({ code: 'journal_write', message: expect.stringContaining('ENOSPC') });
    expect(j.error?.code).toBe('journal_write');
    // without the fix a later append was queued behind a settled `flushing` promise and never settled
    expect(await settled(j.begin('case:c', 'create_case'))).toBe('rejected');
    expect(await settled(j.close())).toBe('resolved');
  });

  it('stops starting operations after a journal write fails, finishes those in flight, and reports the failure', async () => {
    const root = await tmp();
    // header = write 1; the run then fails at the 6th write, in the middle of 40 case creates
    const journal = await Journal.open(root, 'p1', { write: failingAt(root, 6) });
    const service = fakeService({ delayMs: 5 });
    service.folders.push({ id: 'f0', name: 'A', parent_folder_id: '', order: 0 });
    const { written, writeBack } = writeBackRecorder();
    const ops = Array.from({ length: 40 }, (_, i) => createCaseOp(`cases/A/c${i}.yaml`, { id: 'f0' }, `Case ${i}`));
    const result = await executePlan(planOf(ops), { client: service, journal, writeBack, window: 4 });
    expect(await settled(journal.close())).toBe('resolved');

    expect(result.journalError).toMatch(/cannot write the journal .*ENOSPC/);
    // every create that was sent finished and was written back: nothing sent is unaccounted for
    const sent = service.calls.filter((c) => c.endpoint === 'createTestCase');
    expect(service.cases).toHaveLength(sent.length);
    expect(Object.keys(written)).toHaveLength(sent.length);
    expect(result.created).toBe(sent.length);
    // nothing new started after the failure: at most the window was in flight
    expect(sent.length).toBeLessThanOrEqual(8);
    expect(result.skipped.length + result.created).toBe(40);
    expect(result.skipped.every((s) => s.reason === 'not started: the journal could not be written')).toBe(true);
    // the entries written before the failure are intact
    const lines = (await readFile(journalPath(root), 'utf8')).trim().split('\n');
    expect(lines.every((l) => JSON.parse(l))).toBeTruthy();
  });

  it('never sends a create whose begin could not be written', async () => {
    const root = await tmp();
    const journal = await Journal.open(root, 'p1', { write: failingAt(root, 2) });
    const service = fakeService();
    const { writeBack } = writeBackRecorder();
    const result = await executePlan(planOf([createFolderOp(['A']), createCaseOp('cases/A/x.yaml', { op: 'folder:A' })]), {
      client: service,
      journal,
      writeBack,
    });
    await journal.close();
    expect(service.calls).toEqual([]);
    expect(result.created).toBe(0);
    expect(result.journalError).toContain('ENOSPC');
    expect(result.skipped.map((s) => s.key).sort()).toEqual(['case:cases/A/x.yaml', 'folder:A']);
  });
});
