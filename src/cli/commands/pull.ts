import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fetchState, resolveProject } from '../../remote/index.js';
import { pullIntoRepository } from '../../transfer/pull.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { loadTarget } from '../target.js';

export interface PullOptions extends GlobalOptions {
  /** the repository to write into @default '.' */
  dir?: string;
  /** only this folder subtree: names joined by `/` */
  folder?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `Checkout/Payments` → `['Checkout', 'Payments']`. */
export function parseFolderPath(path: string | undefined): string[] | undefined {
  if (path === undefined) return undefined;
  const parts = path.split('/').filter((p) => p.trim() !== '');
  return parts.length > 0 ? parts : undefined;
}

/**
 * `tmsync pull [--dir DIR] [--folder PATH]`: writes the service's state as a tests repository.
 * Existing files are updated in place and keep their names; local files whose items are gone
 * are listed, never deleted. Exit 0 on success.
 */
export async function runPull(options: PullOptions, io: CliIo): Promise<number> {
  const root = resolve(options.cwd, options.dir ?? '.');
  const target = await loadTarget({ ...options, cwd: root, config: options.config ? resolve(options.cwd, options.config) : undefined }, io);
  try {
    const { client, config } = target;
    const folder = parseFolderPath(options.folder);
    const project = await resolveProject(client, target.projectRef);
    const actual = await fetchState(client, project.id, { scope: config.scope, signal: io.signal });
    const hasConfig = await access(join(root, 'tmsync.yaml')).then(
      () => true,
      () => false,
    );
    const repoRoot = target.configFile ? target.root : root;
    const result = await pullIntoRepository(actual, {
      root: repoRoot,
      config,
      ...(folder ? { folder } : {}),
      ...(hasConfig || target.configFile
        ? {}
        : { writeConfig: { project: project.humanIdPrefix, baseUrl: target.baseUrl, ...(folder ? { scope: [folder[0]] } : {}) } }),
    });

    for (const w of result.warnings) io.stderr(`Warning: ${w.message}`);
    for (const m of result.moved) io.stderr(`Moved ${m.from} → ${m.to}`);
    if (result.gone.length > 0) {
      io.stderr(`${plural(result.gone.length, 'local file')} describe items the service no longer has (not deleted):`);
      for (const g of result.gone) io.stderr(`  ${g.file} (${g.itemType.replace('_', ' ')} ${g.id})`);
      io.stderr('Delete them, or remove their `id:` line to create them again with the next apply.');
    }
    const c = result.counts;
    io.stderr(
      `Pulled ${plural(c.cases, 'test case')} in ${plural(c.folders, 'folder')} and ${plural(c.stepGroups, 'step group')} from ${project.name} (${project.humanIdPrefix}) into ${repoRoot}: ` +
        `${result.created.length} files created, ${result.updated.length} updated, ${result.unchanged} unchanged.`,
    );
    if (options.json) {
      io.stdout(
        JSON.stringify({
          project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix },
          root: repoRoot,
          counts: c,
          created: result.created,
          updated: result.updated,
          unchanged: result.unchanged,
          moved: result.moved,
          gone: result.gone,
          warnings: result.warnings,
        }),
      );
    }
    return 0;
  } finally {
    await target.close();
  }
}
