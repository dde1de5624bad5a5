import { open, readFile, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ioError, TmsyncError } from '../errors.js';
import { makeDirectory } from '../repository/file-ops.js';
import type { OperationKind } from '../plan/operations.js';

/**
 * The apply journal, `.tmsync/journal.jsonl` under the repository root: one JSON object a line,
 * appended and fsynced after every entry, so a killed apply leaves a record of what reached the
 * service. A run starts with a header line; later runs append their own header.
 *
 * - `begin` is written BEFORE a create is sent: a `begin` without a later `created`/`done` means the
 *   create may or may not have happened, and the next apply looks the item up by natural key first.
 * - `created` records the id as soon as the create answered (an operation may still have requests
 *   to send, such as the move of a new nested folder).
 * - `done` / `failed` close an operation.
 *
 * Journals never hold the API key, request bodies or service answers: only keys, kinds and ids.
 *
 * Restore runs on the same engine, so its journal is this one, in a file per backup and target
 * (`.tmsync/restore-<hash>.jsonl`, see `src/backup/restore.ts`), keyed `type:old id`. Lines of
 * the restore journal of tmsync before the journals were one (its format 1: `t`, `type`, `old`,
 * `new`, a `tmsync-restore-journal` header) are read as the entries they mean.
 */

/** What an entry is about: the operation's kind. */
export type JournalKind = OperationKind;

/** Names the command a journal belongs to, in its messages. */
export interface JournalOwner {
  /** `journal`, `restore journal` @default 'journal' */
  label?: string;
  /** the command that resumes it @default 'tmsync apply' */
  command?: string;
  /** what moving the file aside costs, for the hint of a corrupt journal @default the plan re-reads the service */
  asideCost?: string;
}

const JOURNAL_FORMAT_VERSION = 1;
export const JOURNAL_DIR = '.tmsync';
const JOURNAL_FILE = 'journal.jsonl';

export interface JournalHeader {
  format_version: number;
  type: 'header';
  project_id: string;
  started_at: string;
}
export interface JournalBegin {
  type: 'begin';
  key: string;
  kind: JournalKind;
  /**
   * For a folder create: ids of the top-level folders with the same name that existed before the
   * create was sent. A later lookup for the folder this create may have made never claims them.
   */
  exclude?: string[];
}
export interface JournalCreated {
  type: 'created' | 'done';
  key: string;
  kind: JournalKind;
  /** the remote id, when the operation has one */
  id?: string;
  human_id?: string;
  /** the file the id belongs in (relative to the root) and the value to write there */
  file?: string;
  write_back?: string;
}
export interface JournalFailed {
  type: 'failed';
  key: string;
  kind?: JournalKind;
  message: string;
  /** the request may have reached the service (a create may exist) */
  ambiguous?: boolean;
}
export type JournalEntry = JournalHeader | JournalBegin | JournalCreated | JournalFailed;

/** What earlier runs against one project left behind. */
export interface JournalSummary {
  /** keys of creates that may have reached the service without a recorded answer */
  pendingCreates: Set<string>;
  /** per pending create: ids its natural-key lookup must not claim (they existed before it was sent) */
  exclude: Map<string, string[]>;
  /** ids recorded by `created`/`done`, latest per key */
  ids: Map<string, { kind: JournalKind; id?: string; humanId?: string; file?: string; writeBack?: string }>;
  /** keys whose last entry is `done` */
  done: Set<string>;
  /**
   * keys of creates begun without a recorded answer, failed ones included (`pendingCreates` holds
   * only those that may have reached the service as far as the failure tells)
   */
  unanswered: Set<string>;
  /** number of runs found for the project */
  runs: number;
}

export function journalPath(root: string): string {
  return join(root, JOURNAL_DIR, JOURNAL_FILE);
}

/**
 * Reads a journal (absent file: no entries). Refuses a journal of another format_version. A line
 * cut short by a kill (the last one, or the last of a run followed by a new run's header) is
 * ignored; a broken line elsewhere is an error.
 */
export async function readJournal(root: string): Promise<JournalEntry[]> {
  return readJournalFile(journalPath(root));
}

/** Reads the journal in `file` (absent: no entries). */
export async function readJournalFile(file: string, owner: JournalOwner = {}): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseJournal(text, file, owner);
}

/** Parses journal text; `file` names it in messages. */
export function parseJournal(text: string, file = JOURNAL_FILE, owner: JournalOwner = {}): JournalEntry[] {
  const command = owner.command ?? 'tmsync apply';
  const lines = fromLegacyRestore(text, file).split('\n');
  const entries: JournalEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const next = lines.slice(i + 1).find((l) => l.trim());
      if (next === undefined) break; // a write cut short by a kill
      if (/^\s*\{\s*"format_version"/.test(next) || /"type"\s*:\s*"header"/.test(next)) continue; // …and a later run

      throw new TmsyncError('journal_corrupt', `${file}:${i + 1} is not a JSON line`, {
        hint: `move ${file} aside and run \`${command}\` again (${owner.asideCost ?? 'the plan re-reads the service, so nothing is lost'})`,
      });
    }
    const entry = value as Partial<JournalEntry> & { format_version?: unknown };
    if (!entry || typeof entry !== 'object' || typeof entry.type !== 'string') {
      throw new TmsyncError('journal_corrupt', `${file}:${i + 1} is not a journal entry`, {
        hint: `move ${file} aside and run \`${command}\` again`,
      });
    }
    if (entry.type === 'header' && entry.format_version !== JOURNAL_FORMAT_VERSION) {
      throw new TmsyncError(
        'journal_version',
        `${file} has format_version ${JSON.stringify(entry.format_version)}; this tmsync reads format_version ${JOURNAL_FORMAT_VERSION}`,
        { hint: `finish that ${command.replace(/^tmsync /, '')} with the tmsync version that wrote it, or move ${file} aside` },
      );
    }
    entries.push(entry as JournalEntry);
  }
  return entries;
}

/** The restore journal format of tmsync before the journals were one (still read). */
const LEGACY_RESTORE_FORMAT_VERSION = 1;
const LEGACY_RESTORE_KINDS: Record<string, JournalKind> = {
  folder: 'create_folder',
  step_group: 'create_step_group',
  case: 'create_case',
  plan: 'create_test_plan',
  run: 'create_test_run',
};

/**
 * Lines of the older restore journal, rewritten as journal entries (other lines as they are):
 * its entries mean the same, so a restore started by an older tmsync is finished by this one.
 */
function fromLegacyRestore(text: string, file: string): string {
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
        if (v.format_version !== LEGACY_RESTORE_FORMAT_VERSION) {
          throw new TmsyncError(
            'journal_version',
            `${file} has format_version ${JSON.stringify(v.format_version)}; this tmsync reads restore journals of format_version ${LEGACY_RESTORE_FORMAT_VERSION} and ${JOURNAL_FORMAT_VERSION}`,
            { hint: 'finish the restore with the tmsync version that started it' },
          );
        }
        return JSON.stringify({ format_version: JOURNAL_FORMAT_VERSION, type: 'header', project_id: v.target_project_id, started_at: v.started_at });
      }
      const isLegacy = (v.t === 'begin' || v.t === 'created' || v.t === 'done') && typeof v.type === 'string' && typeof v.old === 'string';
      if (!isLegacy || !Object.hasOwn(LEGACY_RESTORE_KINDS, v.type as string)) return line;
      const kind = LEGACY_RESTORE_KINDS[v.type as string];
      return JSON.stringify({ type: v.t, key: `${v.type as string}:${v.old as string}`, kind, ...(typeof v.new === 'string' ? { id: v.new } : {}) });
    })
    .join('\n');
}

/** Folds the runs of one project into what a new apply must know. */
export function summarizeJournal(entries: readonly JournalEntry[], projectId: string): JournalSummary {
  const summary: JournalSummary = { pendingCreates: new Set(), exclude: new Map(), ids: new Map(), done: new Set(), unanswered: new Set(), runs: 0 };
  let ours = false;
  for (const e of entries) {
    if (e.type === 'header') {
      ours = e.project_id === projectId;
      if (ours) summary.runs++;
      continue;
    }
    if (!ours) continue;
    switch (e.type) {
      case 'begin':
        summary.pendingCreates.add(e.key);
        summary.unanswered.add(e.key);
        if (e.exclude?.length) summary.exclude.set(e.key, [...(summary.exclude.get(e.key) ?? []), ...e.exclude]);
        summary.done.delete(e.key);
        break;
      case 'created':
      case 'done':
        summary.pendingCreates.delete(e.key);
        summary.unanswered.delete(e.key);
        if (e.type === 'done') summary.done.add(e.key);
        if (e.id !== undefined || e.file !== undefined) {
          summary.ids.set(e.key, { kind: e.kind, id: e.id, humanId: e.human_id, file: e.file, writeBack: e.write_back });
        }
        break;
      case 'failed':
        summary.done.delete(e.key);
        if (e.ambiguous) summary.pendingCreates.add(e.key);
        else summary.pendingCreates.delete(e.key);
        break;
    }
  }
  return summary;
}

interface JournalOptions extends JournalOwner {
  /** the journal file @default `.tmsync/journal.jsonl` under the root */
  file?: string;
  /** what the write-failure message asks to check @default permissions and free space of the repository directory */
  hint?: string;
  /** fsync after every entry, so entries survive a crash of the machine too. @default true */
  durable?: boolean;
  /** for the header's started_at. @default () => new Date() */
  now?: () => Date;
  /**
   * Writes (and, when durable, syncs) one batch of lines; tests inject a failing one.
   * @default append to the file, then fsync
   */
  write?: (text: string) => Promise<void>;
}

/**
 * An open journal for one run: entries are appended in call order. Entries that arrive while a
 * write is being synced are written together by the next write (group commit), so many operations
 * finishing at once cost one fsync, not one each; every `append` still resolves only once its
 * entry is on disk.
 */
export class Journal {
  private queue: { line: string; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private failure: TmsyncError | undefined;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly writeText: (text: string) => Promise<void>,
    private readonly label: string,
    private readonly writeHint: string,
  ) {}

  /**
   * The first write failure (`journal_write`), if any. From then on every `append` rejects at
   * once with it: a run must stop sending new requests, since it can no longer record them.
   */
  get error(): TmsyncError | undefined {
    return this.failure;
  }

  /** Opens (creating `.tmsync/` and the file if needed) and writes this run's header. */
  static async open(root: string, projectId: string, options: JournalOptions = {}): Promise<Journal> {
    const file = options.file ?? journalPath(root);
    const dir = dirname(file);
    await makeDirectory(dir).catch((err: unknown) => Promise.reject(ioError(err, 'create the directory', dir)));
    // keep the journal out of commits without asking users to edit their .gitignore
    await writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
    const handle = await open(file, 'a+');
    // a run killed in the middle of a write leaves a line without its newline: end it first
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.appendFile('\n');
    }
    const durable = options.durable ?? true;
    const write =
      options.write ??
      (async (text: string) => {
        await handle.appendFile(text, 'utf8');
        if (durable) await handle.sync();
      });
    const hint = options.hint ?? 'check the permissions and free space of the repository directory, then run the command again';
    const journal = new Journal(file, handle, write, options.label ?? 'journal', hint);
    const header: JournalHeader = {
      format_version: JOURNAL_FORMAT_VERSION,
      type: 'header',
      project_id: projectId,
      started_at: (options.now?.() ?? new Date()).toISOString(),
    };
    await journal.append(header);
    return journal;
  }

  /** Appends one entry; resolves once it is written (and synced when durable); rejects after a write failure. */
  append(entry: JournalEntry): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const line = `${JSON.stringify(entry)}\n`;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line, resolve, reject });
      // `flushing` is cleared by the promise's own settlement, never inside flush(): a flush that
      // finished synchronously must not leave a settled promise behind (close() would spin on it)
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined;
      this.kick();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      if (!this.failure) {
        try {
          await this.writeText(batch.map((b) => b.line).join(''));
        } catch (err) {
          this.failure = new TmsyncError('journal_write', `cannot write the ${this.label} ${this.file}: ${(err as Error).message}`, {
            hint: this.writeHint,
          });
        }
      }
      for (const b of batch) {
        if (this.failure) b.reject(this.failure);
        else b.resolve();
      }
    }
  }

  begin(key: string, kind: JournalKind, exclude?: string[]): Promise<void> {
    return this.append({ type: 'begin', key, kind, ...(exclude?.length ? { exclude } : {}) });
  }
  created(entry: Omit<JournalCreated, 'type'>): Promise<void> {
    return this.append({ type: 'created', ...entry });
  }
  done(entry: Omit<JournalCreated, 'type'>): Promise<void> {
    return this.append({ type: 'done', ...entry });
  }
  failed(entry: Omit<JournalFailed, 'type'>): Promise<void> {
    return this.append({ type: 'failed', ...entry });
  }

  /** Waits for pending entries and closes the file; always ends, after a write failure too. */
  async close(): Promise<void> {
    for (let i = 0; this.flushing && i < 1000; i++) await this.flushing.catch(() => undefined);
    for (const b of this.queue.splice(0)) b.reject(this.failure ?? new TmsyncError('journal_write', `the journal ${this.file} was closed`));
    await this.handle.close();
  }
}

/**
 * After a run where everything succeeded, the journal has nothing left to resume: it is moved to
 * `journal.jsonl.prev` (the last complete run stays readable for debugging) and the next run
 * starts a fresh file.
 */
export async function rotateJournal(root: string): Promise<void> {
  await rotateJournalFile(journalPath(root));
}

/** Moves a journal file to `<file>.prev` (see {@link rotateJournal}). */
export async function rotateJournalFile(file: string): Promise<void> {
  await rename(file, `${file}.prev`).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
