import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { parsePlanFile, renderPlanJsonLine, renderPlanMarkdown, renderPlanText } from '../../plan/index.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { EXIT } from '../exit-codes.js';

interface ShowOptions extends GlobalOptions {
  /** positional: the plan file */
  args: string[];
  /** @default 'text' (json with --json) */
  format?: 'text' | 'markdown' | 'json';
  /** text and markdown: a table per folder, details only for updates and deletes; false: every item in detail (docs/plan.md) @default compact above 50 operations */
  compact?: boolean;
}

/**
 * `tmsync show PLANFILE`: prints a plan saved by `tmsync plan --out` as `plan` would have (text,
 * markdown or json). Offline: reads only the file. Exit 0, or 1 when the file is not a plan.
 */
export async function runShow(options: ShowOptions, io: CliIo): Promise<number> {
  const name = options.args[0];
  if (!name) throw new TmsyncError('invalid_arguments', 'give the plan file', { hint: 'tmsync show PLANFILE (saved by `tmsync plan --out PLANFILE`)' });
  const file = resolve(options.cwd, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new TmsyncError('plan_file_not_found', `cannot read the plan file ${file}: ${(err as Error).message}`, {
      hint: 'save a plan with `tmsync plan --out FILE` first',
    });
  }
  const plan = parsePlanFile(text);
  const format = options.json ? 'json' : (options.format ?? 'text');
  if (format === 'json') io.stdout(renderPlanJsonLine(plan));
  else if (format === 'markdown') io.stdout(renderPlanMarkdown(plan, { compact: options.compact }));
  else io.stdout(renderPlanText(plan, { color: options.color.stdout, compact: options.compact }));
  return EXIT.OK;
}
