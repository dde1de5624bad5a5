import type { RecordAttachment } from './record.js';

/**
 * Files a test's console output names: `[[ATTACHMENT|path]]` lines (Jenkins' JUnit attachments
 * convention, written by Playwright's JUnit reporter and read by Azure DevOps and GitLab) and
 * `file://` URLs. The paths are kept as written; results/attachments.ts resolves them against the
 * report's directory. Used by every reader that has a test's system-out/err or stdout.
 */
export function attachmentsInOutput(text: string): RecordAttachment[] {
  const found: RecordAttachment[] = [];
  const seen = new Set<string>();
  const add = (path: string) => {
    const p = path.trim();
    if (p === '' || seen.has(p)) return;
    seen.add(p);
    found.push({ path: p });
  };
  for (const m of text.matchAll(/\[\[ATTACHMENT\|([^\]\r\n]+)\]\]/g)) add(m[1]);
  for (const m of text.matchAll(/\bfile:\/\/[^\s"'<>)\]]+/g)) add(m[0]);
  return found;
}
