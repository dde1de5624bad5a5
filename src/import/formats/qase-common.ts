import type { ImportAt, ImportedField, ImportedLookups } from '../imported.js';
import type { ImportReport } from '../report.js';

/**
 * What Qase's two exports (`qase-json.ts`, `qase-csv.ts`) share: the values Qase writes for "not
 * set", the case attributes with no slot in the case model (folded as fields), and attachment
 * links inside its Markdown texts. Both readers give a case the same `sourceId` (Qase's numeric
 * case id), so a project moved by CSV first and by JSON later updates the same files.
 */

/** Qase writes the word `undefined` (and `null`, '') for a lookup nobody set: not a value. */
export function qaseValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return JSON.stringify(value);
  const text = value.trim();
  return text === 'undefined' || text === 'null' ? '' : text;
}

/** Case attributes with a slot (lookups), by the export's key. */
export const QASE_LOOKUPS: Readonly<Record<string, keyof ImportedLookups>> = {
  priority: 'priority',
  type: 'type',
  status: 'status',
  automation: 'automation_type',
  author: 'owner',
};

/** Case attributes with no slot: folded into the description's Fields block under these names. */
export const QASE_FIELDS: Readonly<Record<string, string>> = {
  postconditions: 'Postconditions',
  severity: 'Severity',
  behavior: 'Behavior',
  layer: 'Layer',
  is_flaky: 'Flaky',
  milestone: 'Milestone',
  is_muted: 'Muted',
};

/** `is_flaky: no` and `is_muted: no` are the defaults: folding them would fill every case with noise. */
const DEFAULT_FLAGS = new Set(['no', '0', 'false']);

/** One attribute with no slot → a field (skipping unset values and the default flags). */
export function qaseField(key: string, value: unknown, fields: ImportedField[]): void {
  const text = qaseValue(value);
  if (text === '') return;
  if ((key === 'is_flaky' || key === 'is_muted') && DEFAULT_FLAGS.has(text.toLowerCase())) return;
  fields.push({ name: QASE_FIELDS[key] ?? key, value: text });
}

/** Markdown images and links to uploaded files (Qase's editor inserts attachments as such). */
const ATTACHMENT_LINK = /!\[[^\]]*\]\(([^)\s]+)[^)]*\)|\[[^\]]*\]\(([^)\s]*attachment[^)\s]*)[^)]*\)/gi;

/** Lists the attachment links a Qase Markdown text holds (they stay in the text). */
export function reportMarkdownAttachments(text: string | undefined, report: ImportReport, at: ImportAt): void {
  if (!text) return;
  for (const match of text.matchAll(ATTACHMENT_LINK)) report.attachment(match[1] ?? match[2], at);
}

/** Tags as Qase writes them: a list (of names or `{ title }`) in JSON, a comma-separated cell in CSV. */
export function qaseTags(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const out: string[] = [];
  for (const item of list) {
    const name = typeof item === 'string' ? item : item && typeof item === 'object' ? qaseValue((item as { title?: unknown }).title ?? (item as { name?: unknown }).name) : '';
    const tag = name.trim();
    if (tag !== '' && !out.includes(tag)) out.push(tag);
  }
  return out;
}
