/**
 * The environment variables that tune how the library works, read here: the library reads no
 * environment, the CLI passes what they say as options (docs/architecture.md, "Layers").
 *
 * - `TMSYNC_PARSE_WORKERS=N`: the repository's files are parsed in N worker threads (0: in the
 *   calling thread); not an integer: ignored. → `workers` of `loadRepository`, `validateRepository`
 *   and `loadExistingRepository`.
 * - `TMSYNC_YAML_FAST=0`: every file is read with the `yaml` document, none the fast way.
 *   → `exactYaml` of the same.
 * - `TMSYNC_PULL_WRITE=each`: pull writes and flushes new files one by one. → `writeMode` of
 *   `pullIntoRepository` (and no staged new files).
 */
import type { ReadTuning } from '../usecases/hooks.js';

interface EnvTuning {
  /** how the repository is read */
  load: ReadTuning;
  /** how pull writes new files */
  pullWriteMode: 'batch' | 'each';
}

export function envTuning(env: NodeJS.ProcessEnv): EnvTuning {
  const workers = integerOf(env.TMSYNC_PARSE_WORKERS);
  return {
    load: {
      ...(workers !== undefined ? { workers } : {}),
      ...(env.TMSYNC_YAML_FAST === '0' ? { exactYaml: true } : {}),
    },
    pullWriteMode: env.TMSYNC_PULL_WRITE === 'each' ? 'each' : 'batch',
  };
}

function integerOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isInteger(n) ? n : undefined;
}
