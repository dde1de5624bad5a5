import type { Endpoint } from '../api/index.js';
import { unreadableAnswer } from './call-errors.js';
import { responseSchema } from './response-schemas.js';
import type { RawResponse } from './transport.js';

/** Answer parsing: text to JSON to the endpoint's response schema, and the service's timestamp unit. */

/** The first timestamp of an answer; beyond 10^11 it is in milliseconds (see normalizeTimestamp). */
const STAMP = /"(?:created_at|updated_at|createdAt|updatedAt)"\s*:\s*(\d+)/;

/** The unit of the service's timestamps, from the first answer that carries one. */
export class TimestampUnit {
  unit: 'seconds' | 'milliseconds' | undefined;

  note(text: string): void {
    if (this.unit !== undefined) return;
    const m = STAMP.exec(text);
    if (m) this.unit = Number(m[1]) >= 100_000_000_000 ? 'milliseconds' : 'seconds';
  }
}

/** A 2xx answer, parsed by the endpoint's response schema (an empty one is `{ message: '' }`). */
export function parseAnswer(ep: Endpoint, path: string, res: RawResponse, stamps: TimestampUnit): unknown {
  if (res.status === 204 || res.text.trim() === '') return { message: '' };
  stamps.note(res.text);
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    throw unreadableAnswer(ep, path, res.status, 'the answer is not JSON');
  }
  const schema = responseSchema(ep.name);
  if (!schema) return json;
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw unreadableAnswer(ep, path, res.status, parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
}
