import { createHash } from 'node:crypto';
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TmsyncError } from '../errors.js';

/**
 * The restore journal, `.tmsync/restore-<hash>.jsonl`: which backup item became which target
 * item. One JSON object a line, appended before and after every create, so a killed restore,
 * run again, skips what is done and looks up (by natural key) what may have been created
 * without an answer. Holds ids only: no key, no bodies.
 *
 * - `begin`: a create is about to be sent.
 * - `created`: the create answered with this id (more requests may follow: a folder's move, a
 *   run's results).
 * - `done`: nothing is left to do for the item.
 */

export const RESTORE_JOURNAL_FORMAT_VERSION = 1;

export type RestoreItemType = 'folder' | 'step_group' | 'case' | 'plan' | 'run';

export interface RestoreJournalHeader {
  format_version: number;
  kind: 'tmsync-restore-journal';
  source_project_id: string;
  backup_created_at: string;
  target_project_id: string;
  started_at: string;
}

export interface RestoreJournalEntry {
  t: 'begin' | 'created' | 'done';
  type: RestoreItemType;
  old: string;
  new?: string;
}

export interface RestoreJournalState {
  /** old id → new id, for items with `created` or `done` */
  ids: Map<string, string>;
  done: Set<string>;
  /** begun, never answered: may exist in the target */
  pending: Set<string>;
  runs: number;
}

const key = (type: RestoreItemType, old: string) => `${type}:${old}`;

/** The journal of one backup restored into one target project. */
export function restoreJournalPath(root: string, sourceProjectId: string, backupCreatedAt: string, targetProjectId: string): string {
  const hash = createHash('sha256').update(`${sourceProjectId}\u0000${backupCreatedAt}\u0000${targetProjectId}`).digest('hex').slice(0, 16);
  return join(root, '.tmsync', `restore-${hash}.jsonl`);
}

/** A line with the fields of an entry (their values are read as the journal wrote them). */
function isEntry(v: Record<string, unknown>): v is Record<string, unknown> & RestoreJournalEntry {
  return typeof v.t === 'string' && typeof v.type === 'string' && typeof v.old === 'string';
}

export function parseRestoreJournal(text: string, file: string): RestoreJournalState {
  const state: RestoreJournalState = { ids: new Map(), done: new Set(), pending: new Set(), runs: 0 };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      if (lines.slice(i + 1).every((l) => !l.trim())) break; // a line cut by a kill
      throw new TmsyncError('journal_corrupt', `${file}:${i + 1} is not a JSON line`, {
        hint: `move ${file} aside to start the restore over (items already restored would be created again)`,
      });
    }
    if (v.kind === 'tmsync-restore-journal') {
      if (v.format_version !== RESTORE_JOURNAL_FORMAT_VERSION) {
        throw new TmsyncError(
          'journal_version',
          `${file} has format_version ${JSON.stringify(v.format_version)}; this tmsync reads restore journals of format_version ${RESTORE_JOURNAL_FORMAT_VERSION}`,
          { hint: 'finish the restore with the tmsync version that started it' },
        );
      }
      state.runs += 1;
      continue;
    }
    if (!isEntry(v)) {
      throw new TmsyncError('journal_corrupt', `${file}:${i + 1} is not a restore journal entry`, {
        hint: `move ${file} aside to start the restore over`,
      });
    }
    const e = v;
    const k = key(e.type, e.old);
    if (e.t === 'begin') {
      if (!state.ids.has(k)) state.pending.add(k);
    } else {
      state.pending.delete(k);
      if (e.new !== undefined) state.ids.set(k, e.new);
      if (e.t === 'done') state.done.add(k);
    }
  }
  return state;
}

/** An open journal: reads what earlier runs left, appends this run's entries. */
export class RestoreJournal {
  private failure: TmsyncError | undefined;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    readonly state: RestoreJournalState,
    private readonly writeText: (text: string) => Promise<void>,
  ) {}

  /** What earlier runs left, without writing anything (an absent file is an empty journal). */
  static async read(file: string): Promise<RestoreJournalState> {
    try {
      return parseRestoreJournal(await readFile(file, 'utf8'), file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return parseRestoreJournal('', file);
      throw err;
    }
  }

  /**
   * `write` appends one line (tests inject a failing one). After a write fails, every later entry
   * fails at once with the same `journal_write` error: the restore stops starting creates.
   */
  static async open(
    file: string,
    header: Omit<RestoreJournalHeader, 'format_version' | 'kind'>,
    options: { write?: (text: string) => Promise<void> } = {},
  ): Promise<RestoreJournal> {
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const state = parseRestoreJournal(text, file);
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(file, 'a');
    const j = new RestoreJournal(file, handle, state, options.write ?? (async (text) => void (await handle.write(text))));
    // a line cut by a kill must not glue onto the next entry
    const prefix = text !== '' && !text.endsWith('\n') ? '\n' : '';
    await handle.write(`${prefix}${JSON.stringify({ format_version: RESTORE_JOURNAL_FORMAT_VERSION, kind: 'tmsync-restore-journal', ...header })}\n`);
    return j;
  }

  /** The target id of a backup item restored earlier (created or done). */
  idOf(type: RestoreItemType, old: string): string | undefined {
    return this.state.ids.get(key(type, old));
  }
  isDone(type: RestoreItemType, old: string): boolean {
    return this.state.done.has(key(type, old));
  }
  /** begun by an earlier run without an answer: the item may exist */
  isPending(type: RestoreItemType, old: string): boolean {
    return this.state.pending.has(key(type, old));
  }
  /** every target id the journal has handed out (never adopted twice) */
  claimed(): Set<string> {
    return new Set(this.state.ids.values());
  }

  /** A begun item looked up and not found: it was never made (in memory only; the next begin says so). */
  forget(type: RestoreItemType, old: string): void {
    this.state.pending.delete(key(type, old));
  }

  async begin(type: RestoreItemType, old: string): Promise<void> {
    this.state.pending.add(key(type, old));
    await this.append({ t: 'begin', type, old });
  }
  async created(type: RestoreItemType, old: string, id: string): Promise<void> {
    this.state.pending.delete(key(type, old));
    this.state.ids.set(key(type, old), id);
    await this.append({ t: 'created', type, old, new: id });
  }
  async done(type: RestoreItemType, old: string, id?: string): Promise<void> {
    const k = key(type, old);
    this.state.pending.delete(k);
    if (id !== undefined) this.state.ids.set(k, id);
    this.state.done.add(k);
    await this.append({ t: 'done', type, old, ...(id !== undefined ? { new: id } : {}) });
  }

  private async append(e: RestoreJournalEntry): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      // one write per line: a kill leaves at most the last line cut, which the reader skips
      await this.writeText(`${JSON.stringify(e)}\n`);
    } catch (err) {
      this.failure ??= new TmsyncError('journal_write', `cannot write the restore journal ${this.file}: ${(err as Error).message}`, {
        hint: 'check the permissions and free space of the directory',
      });
      throw this.failure;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
