import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JOURNAL_FORMAT_VERSION, Journal, parseJournal, summarizeJournal, type JournalKind, type JournalOwner } from '../apply/journal.js';
import { TmsyncError } from '../errors.js';

/**
 * The restore journal, `.tmsync/restore-<hash>.jsonl`: which backup item became which target
 * item. It is the apply journal (`src/apply/journal.ts`: same format, same group-committed,
 * fsynced appends, same reading), one file per backup and target project; an entry's key is
 * `type:old id` (`case:7f3a…`). A killed restore, run again, skips what is done and looks up (by
 * natural key) what may have been created without an answer.
 *
 * - `begin`: a create is about to be sent.
 * - `created`: the create answered with this id (more requests may follow: a folder's move, a
 *   run's results).
 * - `done`: nothing is left to do for the item.
 *
 * A journal written by an earlier tmsync (format 1 of the restore journal: lines with `t`,
 * `type`, `old`, `new`, and a `tmsync-restore-journal` header) is read as well: its entries mean
 * the same, so a restore started with an older version is finished by this one.
 */

export type RestoreItemType = 'folder' | 'step_group' | 'case' | 'plan' | 'run';

const KINDS: Record<RestoreItemType, JournalKind> = {
  folder: 'create_folder',
  step_group: 'create_step_group',
  case: 'create_case',
  plan: 'create_test_plan',
  run: 'create_test_run',
};

const OWNER: JournalOwner = {
  label: 'restore journal',
  command: 'tmsync restore',
  asideCost: 'the restore starts over: items already restored would be created again',
};
/** The restore journal format of tmsync before the journals were one (still read). */
const LEGACY_FORMAT_VERSION = 1;

export interface RestoreJournalState {
  /** `type:old` → new id, for items with `created` or `done` */
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

/** What earlier runs left for this target (lines of the older restore format included). */
export function parseRestoreJournal(text: string, file: string, targetProjectId: string): RestoreJournalState {
  const summary = summarizeJournal(parseJournal(fromLegacy(text, file), file, OWNER), targetProjectId);
  const ids = new Map<string, string>();
  for (const [k, rec] of summary.ids) if (rec.id !== undefined) ids.set(k, rec.id);
  return { ids, done: summary.done, pending: summary.pendingCreates, runs: summary.runs };
}

/** Lines of the older restore journal, rewritten as journal entries; other lines as they are. */
function fromLegacy(text: string, file: string): string {
  if (!text.includes('"tmsync-restore-journal"') && !text.includes('"t":')) return text;
  return text
    .split('\n')
    .map((line) => {
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return line;
      }
      if (v.kind === 'tmsync-restore-journal') {
        if (v.format_version !== LEGACY_FORMAT_VERSION) {
          throw new TmsyncError(
            'journal_version',
            `${file} has format_version ${JSON.stringify(v.format_version)}; this tmsync reads restore journals of format_version ${LEGACY_FORMAT_VERSION} and ${JOURNAL_FORMAT_VERSION}`,
            { hint: 'finish the restore with the tmsync version that started it' },
          );
        }
        return JSON.stringify({ format_version: JOURNAL_FORMAT_VERSION, type: 'header', project_id: v.target_project_id, started_at: v.started_at });
      }
      const isLegacy = (v.t === 'begin' || v.t === 'created' || v.t === 'done') && typeof v.type === 'string' && typeof v.old === 'string';
      if (!isLegacy || !Object.hasOwn(KINDS, v.type as string)) return line;
      const type = v.type as RestoreItemType;
      return JSON.stringify({ type: v.t, key: key(type, v.old as string), kind: KINDS[type], ...(typeof v.new === 'string' ? { id: v.new } : {}) });
    })
    .join('\n');
}

/** An open restore journal: what earlier runs left, and this run's entries. */
export class RestoreJournal {
  private constructor(
    private readonly journal: Journal,
    readonly state: RestoreJournalState,
  ) {}

  get file(): string {
    return this.journal.file;
  }

  /** What earlier runs left, without writing anything (an absent file is an empty journal). */
  static async read(file: string, targetProjectId: string): Promise<RestoreJournalState> {
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return parseRestoreJournal(text, file, targetProjectId);
  }

  /**
   * `write` appends lines (tests inject a failing one). After a write fails, every later entry
   * fails at once with the same `journal_write` error: the restore stops starting creates.
   */
  static async open(file: string, targetProjectId: string, options: { write?: (text: string) => Promise<void> } = {}): Promise<RestoreJournal> {
    const state = await RestoreJournal.read(file, targetProjectId);
    const journal = await Journal.open('', targetProjectId, {
      ...OWNER,
      file,
      hint: 'check the permissions and free space of the directory',
      ...(options.write ? { write: options.write } : {}),
    });
    return new RestoreJournal(journal, state);
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
    await this.journal.begin(key(type, old), KINDS[type]);
  }
  async created(type: RestoreItemType, old: string, id: string): Promise<void> {
    this.state.pending.delete(key(type, old));
    this.state.ids.set(key(type, old), id);
    await this.journal.created({ key: key(type, old), kind: KINDS[type], id });
  }
  async done(type: RestoreItemType, old: string, id?: string): Promise<void> {
    const k = key(type, old);
    this.state.pending.delete(k);
    if (id !== undefined) this.state.ids.set(k, id);
    this.state.done.add(k);
    await this.journal.done({ key: k, kind: KINDS[type], ...(id !== undefined ? { id } : {}) });
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
