import { createHash, randomUUID } from 'node:crypto';
import type { DbContext } from './statements.js';

/** A file stored with a run case's result (its bytes apart: {@link attachmentBody}). */
export interface AttachmentRow {
  id: string;
  run_id: string;
  case_id: string;
  file_name: string;
  media_type: string;
  size: number;
  created_at: number;
}

/** Stores a file with a run case; the same name and bytes stored again (a retried update) are kept once. */
export function addRunCaseAttachment(ctx: DbContext, runId: string, caseId: string, file: { fileName: string; mediaType: string; body: Buffer }): void {
  const sha = createHash('sha256').update(file.body).digest('hex');
  ctx
    .stmt(
      `INSERT OR IGNORE INTO run_case_attachments (id, run_id, case_id, file_name, media_type, size, sha256, body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(randomUUID(), runId, caseId, file.fileName, file.mediaType, file.body.length, sha, file.body, ctx.nowSec());
}

/** The files of a run's cases, by case id, in the order they were stored. */
export function runAttachments(ctx: DbContext, runId: string): Map<string, AttachmentRow[]> {
  const rows = ctx
    .stmt('SELECT id, run_id, case_id, file_name, media_type, size, created_at FROM run_case_attachments WHERE run_id = ? ORDER BY seq')
    .all(runId) as AttachmentRow[];
  const out = new Map<string, AttachmentRow[]>();
  for (const r of rows) {
    const list = out.get(r.case_id) ?? [];
    list.push(r);
    out.set(r.case_id, list);
  }
  return out;
}

/** One stored file with its bytes, or undefined. */
export function attachmentBody(ctx: DbContext, id: string): (AttachmentRow & { body: Buffer }) | undefined {
  return ctx
    .stmt('SELECT id, run_id, case_id, file_name, media_type, size, created_at, body FROM run_case_attachments WHERE id = ?')
    .get(id) as (AttachmentRow & { body: Buffer }) | undefined;
}
