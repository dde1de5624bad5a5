import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { resolveProject } from '../../remote/resolve-project.js';
import { safeInline } from '../../safe-text.js';
import type { BackupSection } from '../../backup/backup-format.js';
import { VERSION } from '../../version.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';
import { plural } from '../words.js';
import { EXIT } from '../exit-codes.js';

interface BackupOptions extends GlobalOptions {
  /** where to write the backup; gzip when it ends in `.gz` */
  out: string;
}

const SECTION_WORDS: Record<BackupSection, string> = {
  folders: 'folder',
  step_groups: 'step group',
  test_cases: 'test case',
  test_plans: 'test plan',
  test_runs: 'test run',
};

/**
 * `tmsync backup --out FILE`: a versioned, lossless JSON snapshot of the project, streamed to
 * disk as it is read (memory does not grow with the project). Exit 0 on success; an interrupted
 * backup leaves no file behind.
 */
export async function runBackup(options: BackupOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(options, io);
  const file = resolve(options.cwd, options.out);
  let current: { section: BackupSection; count: number } | undefined;
  const timer = setInterval(() => {
    if (current) io.stderr(`backup: ${plural(current.count, SECTION_WORDS[current.section])} so far…`);
  }, 5000);
  timer.unref();
  try {
    // the first request goes out before the backup's reader and writer are loaded (docs/architecture.md, "Start-up")
    const [project, { writeBackupFile }, { clientBackupSource }] = await Promise.all([
      resolveProject(target.client, target.projectRef),
      import('../../backup/backup.js'),
      import('../../backup/backup-source.js'),
    ]);
    const source = clientBackupSource(target.client, project, {
      baseUrl: target.baseUrl,
      version: VERSION,
      readAhead: Math.max(4, target.config.concurrency * 2),
      signal: io.signal,
    });
    const counts = await writeBackupFile(source, file, {
      signal: io.signal,
      onProgress: (section, count) => {
        current = { section, count };
      },
    });
    const size = (await stat(file)).size;
    const parts = (Object.keys(counts) as BackupSection[]).map((k) => plural(counts[k], SECTION_WORDS[k]));
    io.stderr(`Backed up ${safeInline(project.name)} (${safeInline(project.humanIdPrefix)}): ${parts.join(', ')} to ${options.out} (${formatSize(size)}).`);
    if (options.json) {
      io.stdout(jsonOutput({ file, bytes: size, project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix }, counts }));
    }
    return EXIT.OK;
  } finally {
    clearInterval(timer);
    await target.close();
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
