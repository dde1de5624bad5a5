import { join, relative, resolve } from 'node:path';
import { formatProblem, type Problem } from '../../errors.js';
import { TmsyncError } from '../../errors.js';
import { CONFIG_FILE_NAME, describeSearch, findConfigFile, validateRepository } from '../../repository/index.js';
import { annotateProblems, codeQualityReport } from '../ci-output.js';
import { envTuning } from '../env-tuning.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { plural } from '../words.js';
import { EXIT } from '../exit-codes.js';

interface ValidateOptions extends GlobalOptions {
  /** positional: [dir] (default `.`) */
  args: string[];
  /** `codequality`: a GitLab Code Quality report on stdout @default 'text' */
  format?: string;
}


/**
 * `tmsync validate [DIR]`: every problem of tmsync.yaml and the repository, offline.
 * Exit 0 when there are no errors (warnings are shown but pass), 1 otherwise.
 */
export async function runValidate(options: ValidateOptions, io: CliIo): Promise<number> {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'codequality') {
    throw new TmsyncError('invalid_arguments', `--format ${format} is not a validate format`, { hint: 'use --format text (the default) or --format codequality' });
  }
  const dir = resolve(options.cwd, options.args[0] ?? '.');
  let configFile = options.config ? resolve(options.cwd, options.config) : undefined;
  if (!configFile && options.args[0] === undefined) {
    // no DIR: the nearest tmsync.yaml here or above, as every other command finds it
    const found = await findConfigFile(options.cwd);
    if (!found.file) {
      throw new TmsyncError('config_not_found', `no ${CONFIG_FILE_NAME} in ${dir} or any directory above it`, {
        hint: `looked in ${describeSearch(found.searched)}; run \`tmsync init\` to create a tests repository, or pass DIR or --config FILE`,
        details: { searched: found.searched },
      });
    }
    configFile = found.file;
  }
  const result = await validateRepository(dir, { ...(configFile ? { configFile } : {}), ...envTuning(io.env).load });
  const errors = result.problems.filter((p) => p.severity !== 'warning');
  const warnings = result.problems.length - errors.length;

  annotateProblems(result.problems, result.root, options.cwd, io);
  if (format === 'codequality') {
    // paths relative to the checkout: GitLab's CI_PROJECT_DIR, else where tmsync runs
    io.stdout(JSON.stringify(codeQualityReport(result.problems, result.root, io.env.CI_PROJECT_DIR || options.cwd), null, 2));
  } else if (options.json) {
    const problems = result.problems.map((p) => ({ ...p, severity: p.severity ?? 'error' }));
    io.stdout(jsonOutput({ valid: errors.length === 0, problems }));
  }
  if (!options.json) {
    // paths relative to where the user stands, so terminals and editors can open them
    const shown = (p: Problem): Problem => ({
      ...p,
      file: relative(options.cwd, join(result.root, p.file)) || p.file,
      message: p.severity === 'warning' ? `warning: ${p.message}` : p.message,
    });
    for (const p of result.problems) io.stderr(formatProblem(shown(p)));
  }

  const s = result.state;
  const contents = s
    ? `${plural(s.cases.length, 'test case')} in ${plural(s.folders.length, 'folder')}, ${plural(s.stepGroups.length, 'step group')}`
    : undefined;
  if (errors.length > 0) {
    io.stderr(
      `${plural(errors.length, 'problem')}${warnings ? ` and ${plural(warnings, 'warning')}` : ''}; fix the files listed and run \`tmsync validate\` again.`,
    );
    return EXIT.FAILED;
  }
  io.stderr(`Valid: ${contents ?? 'the repository'}${warnings ? ` (${plural(warnings, 'warning')})` : ''}.`);
  return EXIT.OK;
}
