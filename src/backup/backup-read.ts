import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { TmsyncError } from '../errors.js';
import { Backup, BACKUP_FORMAT_VERSION, BACKUP_KIND, type Backup as BackupData } from './backup-format.js';

/**
 * Reads a backup strictly: the format version first (so a file of another version gets that
 * message, not a list of schema errors), then the shape, the counts written at the end, and
 * every reference between items. Nothing here touches the network: a bad file is refused
 * before anything is written.
 *
 * The whole file is parsed at once: restore needs every item anyway (ids are remapped across
 * sections), and a backup is small beside the memory that holds its items.
 */

const HINT_TRUNCATED = 'the file was cut short (an interrupted copy or download?); take the backup again or use an intact copy';

export async function readBackupFile(file: string): Promise<BackupData> {
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TmsyncError('backup_not_found', `cannot read the backup ${file}${code ? ` (${code})` : ''}`, {
      hint: 'pass the path of a file written by `tmsync backup --out FILE`',
    });
  }
  // gzip is recognized by its magic bytes, whatever the name says
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      raw = gunzipSync(raw);
    } catch (err) {
      const truncated = /unexpected end/i.test(String((err as Error).message));
      throw new TmsyncError(truncated ? 'backup_truncated' : 'backup_invalid', `${file} is ${truncated ? 'a truncated' : 'a damaged'} gzip file`, {
        hint: truncated ? HINT_TRUNCATED : 'the file is not a gzip stream written by `tmsync backup`',
      });
    }
  }
  return parseBackupText(raw.toString('utf8'), file);
}

export function parseBackupText(text: string, file = 'the backup'): BackupData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // a writer always ends with the `end` record and the closing brace: without them the file was cut
    const complete = /"end"\s*:\s*\{[^\n]*\}\s*\}\s*$/.test(text);
    if (!complete) {
      throw new TmsyncError('backup_truncated', `${file} is truncated: it ends before the backup's \`end\` record (${text.length} characters read)`, {
        hint: HINT_TRUNCATED,
      });
    }
    throw new TmsyncError('backup_invalid', `${file} is not valid JSON: ${(err as Error).message}`, {
      hint: 'a backup is written by `tmsync backup`; do not edit it by hand',
    });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new TmsyncError('backup_invalid', `${file} is not a tmsync backup (not a JSON object)`, {
      hint: 'pass a file written by `tmsync backup --out FILE`',
    });
  }
  const o = value as Record<string, unknown>;
  if (o.kind !== BACKUP_KIND) {
    throw new TmsyncError('backup_invalid', `${file} is not a tmsync backup (kind is ${JSON.stringify(o.kind)}, expected "${BACKUP_KIND}")`, {
      hint: 'pass a file written by `tmsync backup --out FILE`',
    });
  }
  if (o.format_version !== BACKUP_FORMAT_VERSION) {
    throw new TmsyncError(
      'backup_version',
      `${file} has format_version ${JSON.stringify(o.format_version)}; this tmsync reads backups of format_version ${BACKUP_FORMAT_VERSION}`,
      { hint: 'restore it with the tmsync version that wrote it (its version is in the file under `tool`), or take a new backup' },
    );
  }
  if (!('end' in o)) {
    throw new TmsyncError('backup_truncated', `${file} has no \`end\` record: the backup did not finish`, { hint: HINT_TRUNCATED });
  }
  const parsed = Backup.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new TmsyncError('backup_invalid', `${file} does not match backup format ${BACKUP_FORMAT_VERSION}: ${issues.join('; ')}`, {
      hint: 'a backup is written by `tmsync backup`; do not edit it by hand',
      details: { issues: parsed.error.issues.length },
    });
  }
  const backup = parsed.data;
  checkCounts(backup, file);
  checkReferences(backup, file);
  return backup;
}

function checkCounts(b: BackupData, file: string): void {
  const wrong = (Object.keys(b.end.counts) as (keyof BackupData['end']['counts'])[]).filter((k) => b[k].length !== b.end.counts[k]);
  if (wrong.length > 0) {
    throw new TmsyncError(
      'backup_invalid',
      `${file}: ${wrong.map((k) => `${k} holds ${b[k].length} items but the end record says ${b.end.counts[k]}`).join('; ')}`,
      { hint: 'the file was changed after it was written; use an intact copy' },
    );
  }
}

/** Every id an item refers to must be an item of the backup; duplicates are refused too. */
function checkReferences(b: BackupData, file: string): void {
  const problems: string[] = [];
  const ids = <T extends { id: string }>(what: string, items: T[]) => {
    const set = new Set<string>();
    for (const it of items) {
      if (set.has(it.id)) problems.push(`${what} ${it.id} appears twice`);
      set.add(it.id);
    }
    return set;
  };
  const folders = ids('folder', b.folders);
  const groups = ids('step group', b.step_groups);
  const cases = ids('test case', b.test_cases);
  const plans = ids('test plan', b.test_plans);
  ids('test run', b.test_runs);
  for (const f of b.folders) if (f.parent_id !== null && !folders.has(f.parent_id)) problems.push(`folder ${f.id} has an unknown parent ${f.parent_id}`);
  for (const c of b.test_cases) {
    if (!folders.has(c.folder_id)) problems.push(`test case ${c.human_id || c.id} is in an unknown folder ${c.folder_id}`);
    for (const s of c.individual_steps) {
      if (s.step_group_id !== null && !groups.has(s.step_group_id)) problems.push(`test case ${c.human_id || c.id} uses an unknown step group ${s.step_group_id}`);
    }
  }
  for (const r of b.test_runs) {
    if (r.test_plan_id !== null && !plans.has(r.test_plan_id)) problems.push(`test run ${r.human_id || r.id} belongs to an unknown test plan ${r.test_plan_id}`);
    for (const rc of r.cases) if (!cases.has(rc.case_id)) problems.push(`test run ${r.human_id || r.id} holds an unknown test case ${rc.case_id}`);
  }
  // a parent cycle would make the folder order impossible
  const parent = new Map(b.folders.map((f) => [f.id, f.parent_id]));
  for (const f of b.folders) {
    const seen = new Set<string>();
    for (let cur: string | null = f.id; cur !== null; cur = parent.get(cur) ?? null) {
      if (seen.has(cur)) {
        problems.push(`folder ${f.id} is its own ancestor`);
        break;
      }
      seen.add(cur);
    }
  }
  if (problems.length > 0) {
    throw new TmsyncError('backup_invalid', `${file} is inconsistent: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (and ${problems.length - 10} more)` : ''}`, {
      hint: 'the file was changed after it was written; use an intact copy',
    });
  }
}
