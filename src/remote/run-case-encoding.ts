import { ApiError } from './api-error.js';

/** Statuses with which a service refuses a body's encoding (or its content with it). */
const ENCODING_REFUSED = new Set([400, 406, 415, 422]);

/**
 * How run-case updates travel: `auto` sends JSON, and multipart/form-data from the first time the
 * service refuses JSON on (remembered for the client's life); `json` and `multipart` are fixed.
 */
export class RunCaseEncoding {
  private multipartNow: boolean;

  constructor(private readonly mode: 'auto' | 'json' | 'multipart') {
    this.multipartNow = mode === 'multipart';
  }

  get multipart(): boolean {
    return this.multipartNow;
  }

  /** Sends a run-case update in the encoding the service takes: JSON refused once, multipart from then on. */
  async send<T>(send: () => Promise<T>): Promise<T> {
    const json = !this.multipartNow;
    try {
      return await send();
    } catch (err) {
      if (!(json && this.mode === 'auto' && err instanceof ApiError && err.status !== undefined && ENCODING_REFUSED.has(err.status))) throw err;
      this.multipartNow = true;
      try {
        return await send();
      } catch (again) {
        // refused the same way both ways: the data is wrong, not the encoding; JSON stays the first try
        if (again instanceof ApiError && again.status === err.status) this.multipartNow = false;
        throw again;
      }
    }
  }
}
