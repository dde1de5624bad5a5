import type { ImportAt } from './imported.js';
import { ownString } from './own-string.js';

/**
 * What an import did with every value that has no slot in the case model: folded into text,
 * turned into a label, or dropped; plus the attachment links it kept and notes (a format that
 * inlined its shared steps). Counted per field, with the first examples, so that nothing is
 * dropped in silence (`import-report.md`, `--json`).
 */

export type ReportAction = 'folded' | 'labelled' | 'dropped';

export interface ReportExample {
  value: string;
  at?: ImportAt;
}

export interface ReportEntry {
  action: ReportAction;
  /** the field as the export names it (`custom_automation_type`, `Estimate`, `step data`) */
  field: string;
  /** where it went, in words: `into the description's Fields block`, `appended to the step's action` */
  rule: string;
  count: number;
  examples: ReportExample[];
}

/** How many examples an entry keeps. */
const EXAMPLES = 3;
/** The longest example kept, in characters. */
const EXAMPLE_LENGTH = 120;

function shorten(value: string): string {
  const one = value.replace(/\s+/g, ' ').trim();
  // its own copy: a slice of the export's text would keep the whole text alive
  return ownString(one.length > EXAMPLE_LENGTH ? `${one.slice(0, EXAMPLE_LENGTH - 1)}…` : one);
}

export class ImportReport {
  private readonly byKey = new Map<string, ReportEntry>();
  private readonly links: ReportExample[] = [];
  private linkCount = 0;
  private readonly noteList: string[] = [];

  /** A value of `field` went where `rule` says (or nowhere, for `dropped`). */
  record(action: ReportAction, field: string, rule: string, value: string, at?: ImportAt): void {
    const key = `${action}\u0000${field}\u0000${rule}`;
    let entry = this.byKey.get(key);
    if (!entry) this.byKey.set(key, (entry = { action, field: ownString(field), rule: ownString(rule), count: 0, examples: [] }));
    entry.count++;
    if (entry.examples.length < EXAMPLES) entry.examples.push({ value: shorten(value), ...(at ? { at } : {}) });
  }

  /** An attachment: exports hold links only; the link stays in the text and is listed here. */
  attachment(link: string, at?: ImportAt): void {
    this.linkCount++;
    if (this.links.length < 50) this.links.push({ value: ownString(link), ...(at ? { at } : {}) });
  }

  /** A sentence about the whole import (once per distinct text). */
  note(text: string): void {
    if (!this.noteList.includes(text)) this.noteList.push(ownString(text));
  }

  get entries(): readonly ReportEntry[] {
    return [...this.byKey.values()];
  }

  get attachments(): { count: number; examples: readonly ReportExample[] } {
    return { count: this.linkCount, examples: this.links };
  }

  get notes(): readonly string[] {
    return this.noteList;
  }
}
