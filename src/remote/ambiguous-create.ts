import { ApiError } from './api-error.js';

/**
 * A create whose failure was ambiguous (sent, then a timeout, a reset or a 5xx) may have happened.
 * Before it is sent again, the caller's lookup says whether the item is there: found, it is the
 * call's result; not there, the create goes again; the lookup failing leaves the create unconfirmed
 * (never a blind repeat).
 */
export class Reconciler {
  /** the ambiguous failure that asks for a lookup before the next attempt */
  private pending: ApiError | undefined;

  constructor(
    private readonly lookup: (() => Promise<unknown>) | undefined,
    private readonly unconfirmed: (first: ApiError | undefined, lookupErr: unknown) => ApiError,
  ) {}

  /** Whether an ambiguous failure can be settled (the caller gave a lookup); if so, the next attempt asks first. */
  arm(failure: unknown): boolean {
    if (!this.lookup) return false;
    this.pending = failure instanceof ApiError ? failure : undefined;
    return true;
  }

  /** Before an attempt: `{ found }` when the lookup found the item; undefined to send. Throws the unconfirmed create. */
  async before(): Promise<{ found: unknown } | undefined> {
    if (!this.lookup || this.pending === undefined) return undefined;
    const failure = this.pending;
    this.pending = undefined;
    let found: unknown;
    try {
      found = await this.lookup();
    } catch (err) {
      // the lookup failed on its own terms (already retried): the create stays ambiguous
      throw this.unconfirmed(failure, err);
    }
    return found === undefined ? undefined : { found };
  }
}
