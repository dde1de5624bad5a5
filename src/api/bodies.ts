import { TmsyncError } from '../errors.js';
import type { BodyOf } from './endpoints.js';
import { CASE_FIELD_ENTRIES_BY_KIND, type CaseFieldEntry } from '../fields.js';

/** A case body as tmsync builds it: only the fields it manages, names and values as the service's schema says. */
export type CaseWireBody = BodyOf<'updateTestCase'> & { title: string; folder_id: string };

type RequiredEntry = Extract<CaseFieldEntry, { required: true }>;
/** What a case create cannot go without (the service refuses it otherwise): the table's `required` fields. */
const CREATE_CASE_REQUIRED = CASE_FIELD_ENTRIES_BY_KIND.filter((f): f is RequiredEntry => 'required' in f && f.required).map((f) => f.wire);

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
