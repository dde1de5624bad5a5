import { stringify } from 'yaml';
import type { ImportReport } from './report.js';
import type { ValueMap } from './value-map.js';

/**
 * `import-report.md`: what an import did, for the pull request that adds the imported files. No
 * date and no machine-specific path: two people importing the same export write the same report.
 */

export interface ImportSummary {
  command: string;
  format: string;
  detected: boolean;
  encodings: { file: string; encoding: string; how: string }[];
  counts: { created: number; updated: number; moved: number; unchanged: number; folders: number };
  vanished: { path: string; source: string }[];
  unmapped: { path: string; field: string; value: string }[];
  proposedMap: ValueMap;
}

const cellText = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function renderImportReport(summary: ImportSummary, report: ImportReport): string {
  const out: string[] = ['# Import report', ''];
  out.push(`\`${summary.command}\`: format \`${summary.format}\`${summary.detected ? ' (detected from the content)' : ''}.`, '');
  for (const e of summary.encodings) out.push(`- \`${cellText(e.file)}\`: ${e.encoding} (${e.how})`);
  const c = summary.counts;
  out.push('', `Files: ${c.created} created, ${c.updated} updated, ${c.moved} moved, ${c.unchanged} unchanged; ${c.folders} new folder settings files.`, '');
  out.push('## Values with no place in a case', '');
  if (report.entries.length === 0) out.push('None: every value of the export has a place in the case model.', '');
  else {
    out.push('| field | what happened | count | first examples |', '| --- | --- | ---: | --- |');
    for (const e of report.entries) {
      const examples = e.examples.map((x) => `\`${cellText(x.value)}\`${x.at?.line ? ` (line ${x.at.line})` : ''}`).join(', ');
      out.push(`| ${cellText(e.field)} | ${e.action}: ${cellText(e.rule)} | ${e.count} | ${examples} |`);
    }
    out.push('');
  }
  const att = report.attachments;
  out.push('## Attachments', '', att.count === 0 ? 'None.' : `${att.count} attachment links, kept as links in the texts (exports hold no files): upload the files to the service by hand if they matter.`, '');
  for (const a of att.examples) out.push(`- ${cellText(a.value)}${a.at?.line ? ` (line ${a.at.line})` : ''}`);
  if (att.examples.length > 0) out.push('');
  if (summary.unmapped.length > 0) {
    out.push('## Values not mapped yet', '', 'Written as the export has them; `tmsync validate` names each one until the map gives it a target.', '');
    for (const u of summary.unmapped.slice(0, 50)) out.push(`- \`${cellText(u.path)}\`: ${u.field} \`${cellText(u.value)}\``);
    if (summary.unmapped.length > 50) out.push(`- … and ${summary.unmapped.length - 50} more`);
    out.push('');
  }
  if (summary.vanished.length > 0) {
    out.push('## No longer in the export', '', 'Kept, not deleted: remove the files by hand if the items are gone for good.', '');
    for (const v of summary.vanished) out.push(`- \`${cellText(v.path)}\` (\`${cellText(v.source)}\`)`);
    out.push('');
  }
  if (Object.keys(summary.proposedMap).length > 0) {
    out.push('## Value map', '', 'The values the export holds and the service\'s names they map to (null: not mapped). Copy it into `tmsync.yaml` (or a `--map` file), fill in the nulls, and import again.', '');
    out.push('```yaml', stringify({ import: { values: summary.proposedMap } }).trimEnd(), '```', '');
  }
  if (report.notes.length > 0) {
    out.push('## Notes', '');
    for (const n of report.notes) out.push(`- ${n}`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
