import { join, resolve } from 'node:path';
import type { Problem } from '../errors.js';
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
  return { problems: sortProblems([...read.problems, ...problems]), state, config: read.config, root: read.root };
}
