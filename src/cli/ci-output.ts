import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Problem } from '../errors.js';
import type { CliIo } from './io.js';
import { safeInline, safeLines, safeMarkdown } from '../safe-text.js';

/**
 * What tmsync writes for CI systems besides its normal output:
 *
 * - GitHub Actions (`GITHUB_ACTIONS=true`): every problem of `validate` and `plan` also as a
 *   workflow command (`::error file=…,line=…,col=…::…`), which the runner turns into an annotation
 *   on the file and line. They go to stderr (the runner reads both streams), so `plan > plan.md`
 *   keeps stdout clean. `plan`, `apply` and `results push` append a section to the file named by
 *   `GITHUB_STEP_SUMMARY`, the job summary.
 * - GitLab: `validate --format codequality` prints a Code Quality report (JSON) on stdout, for
 *   `artifacts: reports: codequality`.
 */

/** True on a GitHub Actions runner. */
function onGithubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** A path as CI systems want it: relative to the checkout (`base`), `/`-separated. */
function checkoutPath(base: string, root: string, file: string): string {
  const abs = isAbsolute(file) ? file : join(root, file);
  const rel = relative(base, abs);
  return (rel === '' ? file : rel).split(sep).join('/');
}

// https://docs.github.com/actions/reference/workflow-commands-for-github-actions: the message
// escapes %, CR and LF; property values also , and :
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `::error file=cases/A/b.yaml,line=3,col=1,title=tmsync unknown_key::message (hint)`; a warning
 * becomes `::warning`. `file` is relative to the checkout (GITHUB_WORKSPACE).
 */
export function githubAnnotation(p: Problem, file: string): string {
  const level = p.severity === 'warning' ? 'warning' : 'error';
  const props = [`file=${escapeProperty(safeInline(file))}`, `line=${p.line}`, `col=${p.col}`, `title=${escapeProperty(`tmsync ${safeInline(p.code)}`)}`];
  // a message may span lines (encoded, the runner shows them); control characters never reach the log
  return `::${level} ${props.join(',')}::${escapeData(safeLines(`${p.message}${p.hint ? ` (${p.hint})` : ''}`).join('\n'))}`;
}

/**
 * Prints the annotations of `problems` on stderr on GitHub Actions (nothing elsewhere). `root` is
 * the repository root the problems' files are relative to; paths are made relative to
 * GITHUB_WORKSPACE (the checkout), else to `cwd`.
 */
export function annotateProblems(problems: readonly Problem[], root: string, cwd: string, io: Pick<CliIo, 'env' | 'stderr'>): void {
  if (!onGithubActions(io.env)) return;
  const base = io.env.GITHUB_WORKSPACE || cwd;
  for (const p of problems) io.stderr(githubAnnotation(p, checkoutPath(base, root, p.file)));
}

/**
 * Appends a markdown section to the job summary on GitHub Actions; nothing elsewhere. A summary
 * that cannot be written is not worth failing the command for: the error is returned, to be
 * shown as a warning.
 */
async function appendStepSummary(env: NodeJS.ProcessEnv, markdown: string): Promise<Error | undefined> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!onGithubActions(env) || !file) return undefined;
  try {
    await appendFile(file, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`, 'utf8');
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

/** One entry of a GitLab Code Quality report (the subset of the Code Climate format GitLab reads). */
interface CodeQualityIssue {
  description: string;
  check_name: string;
  fingerprint: string;
  severity: 'info' | 'minor' | 'major' | 'critical' | 'blocker';
  location: { path: string; lines: { begin: number } };
}

/**
 * The problems as a GitLab Code Quality report: errors are `major`, warnings `minor`; paths are
 * relative to the checkout (`base`, CI_PROJECT_DIR on GitLab). The fingerprint is stable across
 * pipelines for the same problem at the same place, so GitLab can tell new problems from old.
 */
export function codeQualityReport(problems: readonly Problem[], root: string, base: string): CodeQualityIssue[] {
  return problems.map((p) => {
    const path = checkoutPath(base, root, p.file);
    return {
      description: `${p.message}${p.hint ? ` (${p.hint})` : ''}`,
      check_name: p.code,
      fingerprint: createHash('sha256').update(`${path}\0${p.line}\0${p.col}\0${p.code}\0${p.message}`).digest('hex'),
      severity: p.severity === 'warning' ? 'minor' : 'major',
      location: { path, lines: { begin: p.line } },
    };
  });
}

/** Text from the service or the files in a job summary (a table cell, a bold line): escaped as the plan's markdown escapes it. */
export function cell(text: string): string {
  return safeMarkdown(text);
}

/** Appends to the GitHub job summary (when there is one); a failure to write is only a warning. */
export async function summary(io: CliIo, markdown: string): Promise<void> {
  const err = await appendStepSummary(io.env, markdown);
  if (err) io.stderr(`Warning: could not write the job summary (GITHUB_STEP_SUMMARY): ${err.message}`);
}

/** A job-summary section listing problems as `file:line:col` with their messages. */
export function problemsSummary(title: string, headline: string, problems: readonly Problem[], cwd: string, root: string): string {
  const rows = problems.slice(0, 100).map((p) => `| \`${cell(relative(cwd, join(root, p.file)) || p.file)}:${p.line}:${p.col}\` | ${cell(p.message)}${p.hint ? ` (${cell(p.hint)})` : ''} |`);
  const more = problems.length > 100 ? `\n\n… and ${problems.length - 100} more (see the job log)` : '';
  return [`### ${title} failed`, '', `**${headline}**`, '', '| Where | Problem |', '|---|---|', ...rows].join('\n') + more;
}
