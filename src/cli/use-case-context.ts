import { safeInline, safeMessage } from '../safe-text.js';
import type { UseCaseContext, UseCaseNote } from '../usecases/hooks.js';
import type { CliIo } from './io.js';

/** A use case's note, as the CLI says it on stderr. */
function printNote(note: UseCaseNote, io: CliIo): void {
  switch (note.kind) {
    case 'sync_base':
      io.stderr(`Note: ${safeMessage(note.message)}`);
      return;
    case 'changed_since_config':
      io.stderr(`Note: ${note.file} changed since ${note.ref}, which can change the plan of every file: planning everything.`);
      return;
    case 'session':
      io.stderr(`Note: ${note.message}.`);
      return;
    case 'strays_removed':
      io.stderr(`Removed ${note.files.length} temporary file${note.files.length === 1 ? '' : 's'} a stopped run left: ${note.files.join(', ')}`);
      return;
    case 'write_backs_finished':
      if (note.written.length) io.stderr(`Wrote ${note.written.length} id${note.written.length === 1 ? '' : 's'} recorded by an interrupted apply.`);
      for (const f of note.failed) io.stderr(`Warning: ${safeInline(f.file)}: the id ${safeInline(f.id)} could not be written: ${safeInline(f.message)}`);
      return;
    default: {
      const never: never = note;
      return never;
    }
  }
}

/** What every use case gets from the CLI: the interrupt signal, the memory governor's hook, notes on stderr. */
export function useCaseContext(io: CliIo): UseCaseContext {
  return {
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.memory ? { memory: io.memory } : {}),
    onNote: (note) => printNote(note, io),
  };
}
