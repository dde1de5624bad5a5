/**
 * The `default` of a switch over a union (a field kind, an operation kind): a member added to the
 * union and not handled fails to compile at each such switch instead of being skipped silently.
 */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
