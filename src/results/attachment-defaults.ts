/**
 * The defaults of the files `results push` sends (attachments.ts), apart so that the command
 * line's help can name them without loading the reader.
 */

/** Which cases send their files: those that failed (outcome failed or error), every case, or none. */
export type AttachmentScope = 'failed' | 'all' | 'none';

export const ATTACHMENT_SCOPES: readonly AttachmentScope[] = ['failed', 'all', 'none'];

/** The file types sent unless `--attachment-types` says otherwise: images, videos, traces (zip), logs and documents. */
export const DEFAULT_ATTACHMENT_TYPES: readonly string[] = [
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'svg',
  'webm', 'mp4',
  'zip',
  'txt', 'log', 'json', 'xml', 'html', 'htm', 'csv', 'md', 'pdf',
];

const MIB = 1024 * 1024;

export const ATTACHMENT_DEFAULTS: Readonly<{ scope: AttachmentScope; types: readonly string[]; maxFileBytes: number; maxBatchBytes: number }> = Object.freeze({
  scope: 'failed',
  types: DEFAULT_ATTACHMENT_TYPES,
  /** a larger file is skipped */
  maxFileBytes: 10 * MIB,
  /** the file bytes of one update request; a case whose files alone pass it sends those that fit */
  maxBatchBytes: 50 * MIB,
});
