/**
 * Why an operation of a run was not started: a discriminated union that callers switch on (the
 * CLI counts the interrupted and journal-stopped ones apart from those a failure left), with the
 * words the reports show derived from it here, once.
 */
export type SkipCause =
  /** the signal was aborted: before the operation started, or after it started and before its request left */
  | { kind: 'interrupted'; before: 'start' | 'send' }
  /** the journal could not be written: nothing more is sent */
  | { kind: 'journal_unwritable' }
  /** an operation it depends on failed (or was skipped) */
  | { kind: 'dependency_failed'; dependency: string }
  /** its dependencies form a cycle */
  | { kind: 'dependency_cycle' }
  /** a delete of an item that a resumed create of this run claimed */
  | { kind: 'claimed_by_resumed_create' }
  /** a create of the same kind may have been made and could not be looked up */
  | { kind: 'lookup_blocked'; blockedBy: string };

/** An operation not started: its key, why (`cause`) and the words for it (`reason`). */
export interface ApplySkip {
  key: string;
  reason: string;
  cause: SkipCause;
}

export function skipped(key: string, cause: SkipCause): ApplySkip {
  return { key, reason: skipReason(cause), cause };
}

function skipReason(cause: SkipCause): string {
  switch (cause.kind) {
    case 'interrupted':
      return cause.before === 'start' ? 'interrupted before it started' : 'interrupted before it was sent';
    case 'journal_unwritable':
      return 'not started: the journal could not be written';
    case 'dependency_failed':
      return `depends on ${cause.dependency}, which failed`;
    case 'dependency_cycle':
      return 'its dependencies form a cycle';
    case 'claimed_by_resumed_create':
      return 'the item was claimed by a resumed create in this run';
    case 'lookup_blocked':
      return `not started: ${cause.blockedBy}, a create of the same kind, may have been made and could not be looked up; the next apply looks it up first`;
    default: {
      const never: never = cause;
      return never;
    }
  }
}
