export { ApiError, isAmbiguous } from './api-error.js';
export { createClient, type CallRequest, type CallPolicy, type TmsClient } from './client.js';
export { scaledClock } from './clock.js';
export { CLIENT_DEFAULTS, type ClientOptions, type RequestEvent, type RetryEvent } from './client-options.js';
export {
  defaultRetryPolicy,
  isRetryable,
  isLoopbackUrl,
  isLoopbackRefusal,
  backoffDelay,
  retryDelay,
  parseRetryAfter,
  parseResetHeader,
  IDEMPOTENT_POSTS,
} from './policy.js';
export {
  normalizeTimestamp,
  toRemoteProject,
  toRemoteFolder,
  toRemoteCase,
  toRemoteStepGroup,
  toRemoteTestPlan,
  toLookup,
  toUser,
  toLabel,
} from './to-actual.js';
export { resolveProject } from './resolve-project.js';
export { fetchState } from './fetch-state.js';
export { confirmMissing } from './confirm-missing.js';
export type { ClientResponseOf } from './response-schemas.js';
