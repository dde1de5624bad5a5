export { ApiError, isAmbiguous, defaultHint, type ApiErrorCode, type ApiErrorInit } from './api-error.js';
export { createClient, type CallRequest, type CallPolicy, type CallBody, type ClientStats, type TmsClient } from './client.js';
export { systemClock, scaledClock, type Clock } from './clock.js';
export { RequestGate, type Lane, type GateOptions, type GateSlot } from './gate.js';
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
  type RetryPolicy,
  type RetryKind,
  type RetryDecision,
} from './policy.js';
export {
  normalizeTimestamp,
  toRemoteProject,
  toRemoteFolder,
  toRemoteStep,
  toRemoteCase,
  toRemoteStepGroup,
  toRemoteTestPlan,
  toLookup,
  toUser,
  toLabel,
} from './to-actual.js';
export { resolveProject, looksLikeId } from './resolve-project.js';
export { fetchState, deepFreeze, scopedFolderIds, type FetchStateOptions } from './fetch-state.js';
export { confirmMissing, type ConfirmMissingOptions, type NamedItems } from './confirm-missing.js';
export { formatRequestEvent } from './verbose.js';
export type { ClientResponseOf } from './response-schemas.js';
export type { EndpointName, ListEndpointName, ResponseOf, ItemOf, BodyOf, QueryOf } from '../api/endpoints.js';
