import { describe, expect, it } from 'vitest';
import { parseJournal, summarizeJournal } from '../../src/apply/journal.js';
import { RESTORE_JOURNAL } from '../../src/backup/restore.js';

/** What a restore reads of its journal: the write engine's journal, named as the restore's. */
function parseRestoreJournal(text: string, file: string, targetProjectId: string) {
  const summary = summarizeJournal(parseJournal(text, file, RESTORE_JOURNAL), targetProjectId);
  const ids = new Map<string, string>();
  for (const [k, rec] of summary.ids) if (rec.id !== undefined) ids.set(k, rec.id);
  return { ids, done: summary.done, pending: summary.unanswered, runs: summary.runs };
}

const TARGET = 'p-target';

describe('the restore journal', () => {
  it('reads a journal written by an earlier tmsync (restore journal format 1) as the entries it means', () => {
    const text = [
      JSON.stringify({ format_version: 1, kind: 'tmsync-restore-journal', source_project_id: 'p-src', backup_created_at: '2026-01-01T00:00:00Z', target_project_id: TARGET, started_at: '2026-01-02T00:00:00Z' }),
      JSON.stringify({ t: 'begin', type: 'folder', old: 'f1' }),
      JSON.stringify({ t: 'created', type: 'folder', old: 'f1', new: 'F1' }),
      JSON.stringify({ t: 'done', type: 'folder', old: 'f1', new: 'F1' }),
      JSON.stringify({ t: 'begin', type: 'case', old: 'c1' }),
      JSON.stringify({ t: 'begin', type: 'run', old: 'r1' }),
      JSON.stringify({ t: 'created', type: 'run', old: 'r1', new: 'R1' }),
      // a later run of this tmsync appends entries in the current format
      JSON.stringify({ format_version: 1, type: 'header', project_id: TARGET, started_at: '2026-01-03T00:00:00Z' }),
      JSON.stringify({ type: 'done', key: 'run:r1', kind: 'create_test_run', id: 'R1' }),
    ].join('\n');
    const state = parseRestoreJournal(text, 'restore.jsonl', TARGET);
    expect(state.runs).toBe(2);
    expect([...state.ids]).toEqual([
      ['folder:f1', 'F1'],
      ['run:r1', 'R1'],
    ]);
    expect([...state.done].sort()).toEqual(['folder:f1', 'run:r1']);
    expect([...state.pending]).toEqual(['case:c1']);
  });

  it('refuses a restore journal of an unknown older format, naming the version it reads', () => {
    const text = JSON.stringify({ format_version: 7, kind: 'tmsync-restore-journal', target_project_id: TARGET, started_at: 'x' });
    expect(() => parseRestoreJournal(text, 'restore.jsonl', TARGET)).toThrow(/format_version 7; this tmsync reads restore journals of format_version 1/);
  });

  it('says, for a broken line, that moving the journal aside starts the restore over (restore has no plan to re-read the service)', () => {
    const text = [
      JSON.stringify({ format_version: 1, type: 'header', project_id: TARGET, started_at: '2026-01-03T00:00:00Z' }),
      '{"type":"do',
      JSON.stringify({ type: 'begin', key: 'case:c1', kind: 'create_case' }),
    ].join('\n');
    let err: unknown;
    try {
      parseRestoreJournal(text, 'restore.jsonl', TARGET);
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('journal_corrupt');
    expect((err as { hint?: string }).hint).toBe(
      'move restore.jsonl aside and run `tmsync restore` again (the restore starts over: items already restored would be created again)',
    );
  });
});
