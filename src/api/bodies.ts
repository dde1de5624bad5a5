import type { BodyOf } from './endpoints.js';

/** A case body as tmsync builds it: only the fields it manages, names and values as the service's schema says. */
export type CaseWireBody = BodyOf<'updateTestCase'> & { title: string; folder_id: string };
