import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filePart, parseAttachmentTypes, parseByteSize, selectCaseFiles, type CaseFile } from '../../src/results/attachments.js';
import type { Outcome, RecordAttachment, TestRecord } from '../../src/results/record.js';
import { TmsyncError } from '../../src/errors.js';

let dir: string;

function record(outcome: Outcome, attachments: RecordAttachment[], report = 'reports/junit.xml'): TestRecord {
  return { name: 't', classname: '', outcome, properties: {}, suites: [], report, attachments };
}

const names = (files: readonly CaseFile[] | undefined) => (files ?? []).map((f) => f.fileName);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tmsync-attach-'));
  await mkdir(join(dir, 'reports', 'shots'), { recursive: true });
  await writeFile(join(dir, 'reports', 'shots', 'fail.png'), Buffer.alloc(100, 1));
  await writeFile(join(dir, 'reports', 'shots', 'pass.png'), Buffer.alloc(50, 2));
  await writeFile(join(dir, 'reports', 'shots', 'big.png'), Buffer.alloc(5000, 3));
  await writeFile(join(dir, 'reports', 'run.log'), 'log text');
  await writeFile(join(dir, 'reports', 'core.dump'), Buffer.alloc(10));
  await writeFile(join(dir, 'abs.jpg'), Buffer.alloc(20, 4));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('selectCaseFiles', () => {
  const cases = () => [
    { caseId: 'failed-case', outcome: 'failed' as const, records: [record('failed', [{ path: 'shots/fail.png' }])] },
    { caseId: 'error-case', outcome: 'error' as const, records: [record('error', [{ path: join(dir, 'abs.jpg') }])] },
    { caseId: 'passed-case', outcome: 'passed' as const, records: [record('passed', [{ path: 'shots/pass.png' }])] },
  ];

  it('sends the files of failed and errored cases by default, resolving paths against the report\'s directory, and leaves the passed ones out', async () => {
    const s = await selectCaseFiles(cases(), { cwd: dir });
    expect(names(s.files.get('failed-case'))).toEqual(['fail.png']);
    expect(s.files.get('failed-case')![0]).toMatchObject({ bytes: 100, mediaType: 'image/png', from: { path: join(dir, 'reports', 'shots', 'fail.png') } });
    expect(names(s.files.get('error-case'))).toEqual(['abs.jpg']);
    expect(s.files.has('passed-case')).toBe(false);
    expect(s.notSelected).toBe(1);
    expect(s.skipped).toEqual([]);
    expect(s.missing).toEqual([]);
  });

  it('--attachments all sends every case\'s files; none sends no file', async () => {
    const all = await selectCaseFiles(cases(), { cwd: dir, scope: 'all' });
    expect([...all.files.keys()]).toEqual(['failed-case', 'error-case', 'passed-case']);
    const none = await selectCaseFiles(cases(), { cwd: dir, scope: 'none' });
    expect(none.files.size).toBe(0);
    expect(none.notSelected).toBe(3);
  });

  it('gathers a case\'s files from every record mapped to it (a passed record\'s too, when the case failed), each file once', async () => {
    const s = await selectCaseFiles(
      [{ caseId: 'c', outcome: 'failed', records: [record('passed', [{ path: 'shots/pass.png' }]), record('failed', [{ path: 'shots/fail.png' }, { path: 'shots/pass.png' }])] }],
      { cwd: dir },
    );
    expect(names(s.files.get('c'))).toEqual(['pass.png', 'fail.png']);
  });

  it('reads file:// URLs, and names inline bytes from their file name or media type', async () => {
    const s = await selectCaseFiles(
      [
        {
          caseId: 'c',
          outcome: 'failed',
          records: [
            record('failed', [
              { path: pathToFileURL(join(dir, 'reports', 'run.log')).href },
              { body: Buffer.from('PNGDATA').toString('base64'), encoding: 'base64', mediaType: 'image/png' },
              { body: 'hello', encoding: 'identity', mediaType: 'text/plain', fileName: 'note.txt' },
              { body: 'a log line', encoding: 'identity', mediaType: 'text/x.cucumber.log+plain' },
            ]),
          ],
        },
      ],
      { cwd: dir },
    );
    const files = s.files.get('c')!;
    expect(names(files)).toEqual(['run.log', 'attachment-2.png', 'note.txt', 'attachment-4.txt']);
    expect(files[3].mediaType).toBe('text/x.cucumber.log+plain');
    expect(files[1].bytes).toBe(7);
    // inline bytes are decoded when the part is built
    expect(Buffer.from(filePart(files[1], 0, 1, () => undefined).read()!).toString()).toBe('PNGDATA');
    expect(Buffer.from(filePart(files[2], 0, 2, () => undefined).read()!).toString()).toBe('hello');
  });

  it('lists missing and unreadable files, never throwing', async () => {
    const s = await selectCaseFiles([{ caseId: 'c', outcome: 'failed', records: [record('failed', [{ path: 'nope.png' }, { path: 'shots' }, { path: 'shots/fail.png' }])] }], { cwd: dir });
    expect(s.missing).toEqual([
      { caseId: 'c', source: 'nope.png', reason: 'no such file' },
      { caseId: 'c', source: 'shots', reason: 'not a file' },
    ]);
    expect(names(s.files.get('c'))).toEqual(['fail.png']);
    // a file that goes away after it was chosen: the part is left out and the loss reported
    const gone: string[] = [];
    const part = filePart({ ...s.files.get('c')![0], from: { path: join(dir, 'vanished.png') } }, 0, 0, (_f, why) => gone.push(why));
    expect(part.read()).toBeUndefined();
    expect(gone).toEqual(['no such file when sent']);
  });

  it('skips files of a type not sent (the default types, or --attachment-types), and takes any type with all', async () => {
    const recs = [record('failed', [{ path: 'core.dump' }, { path: 'run.log' }, { path: 'shots/fail.png' }])];
    const byDefault = await selectCaseFiles([{ caseId: 'c', outcome: 'failed', records: recs }], { cwd: dir });
    expect(names(byDefault.files.get('c'))).toEqual(['run.log', 'fail.png']);
    expect(byDefault.skipped).toEqual([{ caseId: 'c', source: 'core.dump', bytes: 10, reason: 'type' }]);
    const pngOnly = await selectCaseFiles([{ caseId: 'c', outcome: 'failed', records: recs }], { cwd: dir, types: parseAttachmentTypes('.PNG') });
    expect(names(pngOnly.files.get('c'))).toEqual(['fail.png']);
    const all = await selectCaseFiles([{ caseId: 'c', outcome: 'failed', records: recs }], { cwd: dir, types: parseAttachmentTypes('all') });
    expect(names(all.files.get('c'))).toEqual(['core.dump', 'run.log', 'fail.png']);
  });

  it('skips a file over the per-file cap, and the files of a case past the per-request cap', async () => {
    const recs = [record('failed', [{ path: 'shots/big.png' }, { path: 'shots/fail.png' }, { path: 'shots/pass.png' }])];
    const s = await selectCaseFiles([{ caseId: 'c', outcome: 'failed', records: recs }], { cwd: dir, maxFileBytes: 1000, maxBatchBytes: 120 });
    expect(names(s.files.get('c'))).toEqual(['fail.png']);
    expect(s.skipped).toEqual([
      { caseId: 'c', source: 'shots/big.png', bytes: 5000, reason: 'too_large' },
      { caseId: 'c', source: 'shots/pass.png', bytes: 50, reason: 'batch_limit' },
    ]);
  });

  it('refuses a bad scope, size or type list before reading anything', async () => {
    await expect(selectCaseFiles([], { scope: 'some' as never })).rejects.toBeInstanceOf(TmsyncError);
    await expect(selectCaseFiles([], { maxFileBytes: parseByteSize('ten') })).rejects.toThrow(/--attachment-max-size/);
    expect(() => parseAttachmentTypes(' , ')).toThrow(/names no file type/);
    expect(parseByteSize('10MB')).toBe(10 * 1024 * 1024);
    expect(parseByteSize('512kb')).toBe(512 * 1024);
    expect(parseByteSize('1234')).toBe(1234);
  });
});
