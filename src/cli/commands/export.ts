import { join, relative, resolve } from 'node:path';
import { formatProblem, TmsyncError } from '../../errors.js';
import { exportFormat, exportRepository } from '../../export/export.js';
import { ImportReport } from '../../import/report.js';
import { CONFIG_FILE_NAME, describeSearch, findConfigFile, validateRepository, writeFileAtomic } from '../../repository/index.js';
import { safeInline } from '../../safe-text.js';
import { envTuning } from '../env-tuning.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { plural } from '../words.js';
import { EXIT } from '../exit-codes.js';

interface ExportOptions extends GlobalOptions {
  /** positional: FORMAT */
  args: string[];
  /** the file to write */
  out: string;
}

/**
 * `tmsync export FORMAT --out FILE`: the repository (found as `validate` finds it, offline) in
 * another tool's import format. A repository with problems is not exported (the file would not
 * say what the repository means); what the format cannot hold is listed, never left out in silence.
 */
export async function runExport(options: ExportOptions, io: CliIo): Promise<number> {
  const format = exportFormat(options.args[0] ?? '');
  let configFile = options.config ? resolve(options.cwd, options.config) : undefined;
  if (!configFile) {
    const found = await findConfigFile(options.cwd);
    if (!found.file) {
      throw new TmsyncError('config_not_found', `no ${CONFIG_FILE_NAME} in ${options.cwd} or any directory above it`, {
        hint: `looked in ${describeSearch(found.searched)}; run it inside a tests repository, or pass --config FILE`,
        details: { searched: found.searched },
      });
    }
    configFile = found.file;
  }
  const loaded = await validateRepository(options.cwd, { configFile, ...envTuning(io.env).load });
  const errors = loaded.problems.filter((p) => p.severity !== 'warning');
  if (errors.length > 0 || !loaded.state) {
    for (const p of errors) io.stderr(formatProblem({ ...p, file: relative(options.cwd, join(loaded.root, p.file)) || p.file }));
    if (options.json) io.stdout(jsonOutput({ problems: loaded.problems }));
    io.stderr(`${red('Error:', options.color.stderr)} ${plural(errors.length, 'problem')} in the tests repository: nothing exported; fix the files listed (\`tmsync validate\` checks them offline).`);
    return EXIT.FAILED;
  }
  const state = loaded.state;
  const report = new ImportReport();
  const text = exportRepository(format, state, { report });
  const file = resolve(options.cwd, options.out);
  await writeFileAtomic(file, text);

  io.stderr(`Exported ${plural(state.cases.length, 'test case')} in ${plural(state.folders.length, 'folder')} as ${format} to ${options.out}.`);
  for (const e of report.entries) {
    const example = e.examples[0] ? ` (e.g. ${safeInline(e.examples[0].value)}${e.examples[0].at ? ` in ${e.examples[0].at.file}` : ''})` : '';
    io.stderr(`  ${e.action} ${plural(e.count, e.field)}: ${e.rule}${example}`);
  }
  for (const note of report.notes) io.stderr(`  note: ${safeInline(note)}`);
  if (options.json) {
    io.stdout(
      jsonOutput({
        file,
        format,
        counts: { folders: state.folders.length, step_groups: state.stepGroups.length, test_cases: state.cases.length },
        report: { entries: report.entries, notes: report.notes },
      }),
    );
  }
  return EXIT.OK;
}
