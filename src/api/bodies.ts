import { TmsyncError } from '../errors.js';
import type { BodyOf } from './endpoints.js';

/** A case body as tmsync builds it: only the fields it manages, names and values as the service's schema says. */
export type CaseWireBody = BodyOf<'updateTestCase'> & { title: string; folder_id: string };

/** What a case create cannot go without (the service refuses it otherwise). */
const CREATE_CASE_REQUIRED = ['type_id', 'status_id', 'automation_type_id', 'priority_id', 'owner_id'] as const;

function isCreateCaseBody(body: CaseWireBody): body is BodyOf<'createTestCase'> {
  return CREATE_CASE_REQUIRED.every((k) => typeof body[k] === 'string');
}

/**
 * The body of a case create. The plan (defaults) and restore (the mapping) give a new case every
 * field the service requires; a body without one (a hand-edited saved plan, a backup case without a
 * type) is refused here, naming the fields, instead of by the service.
 */
export function createCaseBody(body: CaseWireBody): BodyOf<'createTestCase'> {
  if (isCreateCaseBody(body)) return body;
  const missing = CREATE_CASE_REQUIRED.filter((k) => typeof body[k] !== 'string');
  throw new TmsyncError('missing_required_field', `the new test case "${body.title}" has no ${missing.join(', ')}`, {
    hint: 'a new case needs a type, status, priority, automation type and owner: give them in the file or in tmsync.yaml defaults',
  });
}
