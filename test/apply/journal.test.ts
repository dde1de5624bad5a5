import { mkdtemp, readFile, writeFile, mkdir, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, journalPath, parseJournal, readJournal, rotateJournal, summarizeJournal } from '../../src/apply/journal.js';

const tmp = () => mkdtemp(join(tmpdir(), 'tmsync-journal-'));

describe('journal', () => {
  it('writes a versioned header and one JSON line per entry, readable back', async () => {
    const root = await tmp();
    const j = await Journal.open(root, 'p1', { now: () => new Date('2026-01-01T00:00:00Z') });
    await j.begin('case:a.yaml', 'create_case');
    await j.done({ key: 'case:a.yaml', kind: 'create_case', id: 'c1', human_id: 'DEMO-1', file: 'cases/a.yaml', write_back: 'DEMO-1' });
    await j.close();
    const lines = (await readFile(journalPath(root), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ format_version: 1, type: 'header', project_id: 'p1', started_at: '2026-01-01T00:00:00.000Z' });
    expect(lines.map((l) => l.type)).toEqual(['header', 'begin', 'done']);
    expect(await readJournal(root)).toHaveLength(3);
    await access(join(root, '.tmsync', '.gitignore'));
  });

  it('refuses a journal of another format_version and names both versions', () => {
    expect(() => parseJournal('{"format_version":2,"type":"header","project_id":"p","started_at":"x"}\n')).toThrow(/format_version 2.*format_version 1/);
  });

  it('ignores a last line cut short by a kill but rejects a broken line in the middle', () => {
    const good = '{"format_version":1,"type":"header","project_id":"p","started_at":"x"}\n{"type":"begin","key":"k","kind":"create_case"}\n';
    expect(parseJournal(`${good}{"type":"do`)).toHaveLength(2);
    expect(() => parseJournal(`${good}{"type":"do\n{"type":"begin","key":"k2","kind":"create_case"}\n`)).toThrow(/not a JSON line/);
  });

  it('reports a create begun without an answer as pending and a finished one as done with its id', () => {
    const entries = parseJournal(
      [
        { format_version: 1, type: 'header', project_id: 'p', started_at: 'x' },
        { type: 'begin', key: 'folder:A', kind: 'create_folder', exclude: ['old-a'] },
        { type: 'begin', key: 'folder:B', kind: 'create_folder' },
        { type: 'created', key: 'folder:B', kind: 'create_folder', id: 'fb', file: 'cases/B/_folder.yaml', write_back: 'fb' },
        { type: 'begin', key: 'case:c', kind: 'create_case' },
        { type: 'failed', key: 'case:c', kind: 'create_case', message: 'timeout', ambiguous: true },
        { type: 'begin', key: 'case:d', kind: 'create_case' },
        { type: 'failed', key: 'case:d', kind: 'create_case', message: '400 bad' },
      ].map((e) => JSON.stringify(e)).join('\n'),
    );
    const s = summarizeJournal(entries, 'p');
    expect([...s.pendingCreates].sort()).toEqual(['case:c', 'folder:A']);
    expect(s.exclude.get('folder:A')).toEqual(['old-a']);
    expect(s.ids.get('folder:B')).toMatchObject({ id: 'fb', file: 'cases/B/_folder.yaml', writeBack: 'fb' });
    expect(s.done.size).toBe(0);
  });

  it('keeps every create begun without a recorded answer among the unanswered, failed ones too, until one answers', () => {
    const entries = parseJournal(
      [
        { format_version: 1, type: 'header', project_id: 'p', started_at: 'x' },
        { type: 'begin', key: 'case:lost', kind: 'create_case' },
        { type: 'begin', key: 'case:refused', kind: 'create_case' },
        { type: 'failed', key: 'case:refused', kind: 'create_case', message: 'killed after sending' },
        { type: 'begin', key: 'case:made', kind: 'create_case' },
        { type: 'created', key: 'case:made', kind: 'create_case', id: 'c1' },
      ].map((e) => JSON.stringify(e)).join('\n'),
    );
    const s = summarizeJournal(entries, 'p');
    expect([...s.unanswered].sort()).toEqual(['case:lost', 'case:refused']);
    expect([...s.pendingCreates]).toEqual(['case:lost']);
  });

  it('only counts the runs of the project being applied', () => {
    const entries = parseJournal(
      [
        { format_version: 1, type: 'header', project_id: 'other', started_at: 'x' },
        { type: 'begin', key: 'folder:A', kind: 'create_folder' },
        { format_version: 1, type: 'header', project_id: 'p', started_at: 'y' },
        { type: 'done', key: 'folder:C', kind: 'create_folder', id: 'fc' },
      ].map((e) => JSON.stringify(e)).join('\n'),
    );
    const s = summarizeJournal(entries, 'p');
    expect(s.pendingCreates.size).toBe(0);
    expect(s.runs).toBe(1);
    expect([...s.done]).toEqual(['folder:C']);
  });

  it('keeps entries written concurrently intact, one per line', async () => {
    const root = await tmp();
    const j = await Journal.open(root, 'p', { durable: false });
    await Promise.all(Array.from({ length: 200 }, (_, i) => j.done({ key: `k${i}`, kind: 'create_case', id: `id${i}` })));
    await j.close();
    const entries = await readJournal(root);
    expect(entries).toHaveLength(201);
    expect(new Set(entries.slice(1).map((e) => (e as { key: string }).key)).size).toBe(200);
  });

  it('starts a new run on its own line after a run killed in the middle of a write, and reads both', async () => {
    const root = await tmp();
    await mkdir(join(root, '.tmsync'));
    await writeFile(journalPath(root), '{"format_version":1,"type":"header","project_id":"p","started_at":"x"}\n{"type":"begin","key":"a","kind":"create_case"}\n{"type":"do');
    const j = await Journal.open(root, 'p', { durable: false });
    await j.begin('b', 'create_case');
    await j.close();
    const entries = await readJournal(root);
    expect(entries.map((e) => e.type)).toEqual(['header', 'begin', 'header', 'begin']);
    expect([...summarizeJournal(entries, 'p').pendingCreates]).toEqual(['a', 'b']);
  });

  it('rotates the journal to journal.jsonl.prev, and a missing journal is no error', async () => {
    const root = await tmp();
    await mkdir(join(root, '.tmsync'));
    await writeFile(journalPath(root), '{"format_version":1,"type":"header","project_id":"p","started_at":"x"}\n');
    await rotateJournal(root);
    expect(await readJournal(root)).toEqual([]);
    expect(await readFile(`${journalPath(root)}.prev`, 'utf8')).toContain('header');
    await rotateJournal(root);
  });
});
