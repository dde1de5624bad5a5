import { join, resolve } from 'node:path';
import type { Problem } from '../errors.js';
import { CASE_FIELDS, fieldOf } from '../fields.js';
import type { DesiredState } from '../model.js';
import { readConfig, type TmsyncConfig } from './config.js';
import { loadRepository, sortProblems, type LoadRepositoryOptions } from './loader.js';

interface ValidateRepositoryOptions extends Pick<LoadRepositoryOptions, 'workers' | 'exactYaml'> {
  /** the configuration file. @default `<dir>/tmsync.yaml` (its directory is the repository root) */
  configFile?: string;
}

interface ValidateRepositoryResult {
  /** config and repository problems, warnings included (`severity: 'warning'`) */
  problems: Problem[];
  /** absent when tmsync.yaml itself is invalid */
  state?: DesiredState;
  config?: TmsyncConfig;
  /** absolute repository root */
  root: string;
}

/**
 * Everything `tmsync validate` checks, offline: tmsync.yaml, then every file of the repository.
 * Throws only `config_not_found` and real I/O errors.
 */
export async function validateRepository(dir: string, options: ValidateRepositoryOptions = {}): Promise<ValidateRepositoryResult> {
  const configFile = options.configFile ?? join(resolve(dir), 'tmsync.yaml');
  const read = await readConfig(configFile);
  if (!read.config) return { problems: sortProblems(read.problems), root: read.root };
  // nothing else runs meanwhile: every core may parse
  const { state, problems } = await loadRepository(read.root, read.config, {
    callerIdle: true,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.exactYaml ? { exactYaml: true } : {}),
  });
  const unmapped = read.config.import ? unmappedImportValues(state, read.config) : [];
  return { problems: sortProblems([...read.problems, ...problems, ...unmapped]), state, config: read.config, root: read.root };
}

/**
 * Cases holding a value that `import.values` of tmsync.yaml names without a target: another
 * tool's value `tmsync import` wrote as it came, which the service would not know.
 */
function unmappedImportValues(state: DesiredState, config: TmsyncConfig): Problem[] {
  const values = config.import?.values ?? {};
  const problems: Problem[] = [];
  for (const f of CASE_FIELDS) {
    const map = (values as Record<string, Record<string, string | null> | undefined>)[f.key];
    if (!map || (f.kind !== 'lookup' && f.kind !== 'user')) continue;
    const open = new Set(Object.entries(map).filter(([, target]) => !target).map(([source]) => source));
    if (open.size === 0) continue;
    for (const c of state.cases) {
      const value = fieldOf<unknown>(c.fields, f, 'model');
      if (typeof value !== 'string' || !open.has(value)) continue;
      problems.push({
        file: c.file,
        line: c.lines[f.key] ?? 1,
        col: 1,
        code: 'unmapped_import_value',
        message: `\`${f.key}: ${value}\` is another tool's value that \`import.values.${f.key}\` of tmsync.yaml does not map yet`,
        hint: `give it the service's name in tmsync.yaml (import.values.${f.key}."${value}"), then run \`tmsync import\` again, or edit the case`,
      });
    }
  }
  return problems;
}
