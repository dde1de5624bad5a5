/**
 * Promises a use case keeps in flight side by side (reads of the files, the service and the base).
 * Each is tracked as it starts, so that a failure while the others still run is never an unhandled
 * rejection: the first failure is kept and stops the others (`stop` is aborted), and it is the
 * error the use case throws once every tracked promise has settled. Later failures are the
 * consequences of that stop (cancelled reads) and are dropped on purpose.
 */
interface InFlight {
  track<T>(promise: Promise<T>): Promise<T>;
  /** aborts the others and waits until every tracked promise has settled */
  stop(): Promise<void>;
  /** after `err` interrupted the use case: stops the rest and returns the error to throw (the first failure) */
  failed(err: unknown): Promise<unknown>;
}

export function inFlight(stop: AbortController): InFlight {
  const tracked: Promise<unknown>[] = [];
  let first: { error: unknown } | undefined;
  const settleAll = async () => {
    stop.abort();
    await Promise.allSettled(tracked);
  };
  return {
    track(promise) {
      tracked.push(
        promise.then(undefined, (error: unknown) => {
          first ??= { error };
          stop.abort();
        }),
      );
      return promise;
    },
    stop: settleAll,
    async failed(err) {
      await settleAll();
      return first ? first.error : err;
    },
  };
}
