import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatProblem, TmsyncError, type Problem } from '../../errors.js';
import { resolveProject } from '../../remote/resolve-project.js';
import { REPORT_FORMAT_OPTIONS, type ReportFormatOption } from '../../results/report-formats.js';
import { safeInline } from '../../safe-text.js';
import {
  coverageFailures,
  coverageOfRepository,
  parseCoverageKinds,
  type CoverageKind,
  type CoverageOptions,
  type CoverageResult,
} from '../../usecases/coverage.js';
import { cell, codeQualityReport, githubAnnotation, summary } from '../ci-output.js';
import { envTuning } from '../env-tuning.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget, loadTargetConfig } from '../target.js';

const OUTPUT_FORMATS = ['text', 'markdown', 'json', 'github', 'gitlab'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface CoverageCliOptions extends GlobalOptions {
  /** positional: report files (optional) */
  args: string[];
  testRun?: string;
  /** `--fail-on` values, comma-separated or repeated */
  failOn?: string[];
  /** the output @default 'text' */
  format?: string;
  /** the reports' format @default 'auto' */
  reportFormat?: string;
  /** write the output to this file instead of stdout */
  out?: string;
}

/** What each kind of finding is called in the output, and the code of its annotation. */
const KIND_WORDS: Record<CoverageKind, { title: string; code: string }> = {
  'unproven-cases': { title: 'Automated cases no test proves', code: 'unproven_case' },
  'unmapped-tests': { title: 'Tests that map to no case', code: 'unmapped_test' },
  'missing-tests': { title: '`automation:` names a test the reports do not contain', code: 'missing_test' },
  'unexecuted-cases': { title: 'Cases the run has not executed', code: 'unexecuted_case' },
};

/**
 * `tmsync coverage [REPORT…] [--test-run ID] [--fail-on KINDS] [--format …] [--out FILE]`: how the
 * repository's cases and the automated tests are linked (docs/automation.md). Exit 1 when a kind
 * named by --fail-on has findings, else 0.
 */
export async function runCoverage(options: CoverageCliOptions, io: CliIo): Promise<number> {
  const format = (options.json ? 'json' : (options.format ?? 'text')) as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new TmsyncError('invalid_option', `--format ${options.format} is not a coverage output`, { hint: `choose one of ${OUTPUT_FORMATS.join(', ')}` });
  }
  const reportFormat = (options.reportFormat ?? 'auto') as ReportFormatOption;
  if (!REPORT_FORMAT_OPTIONS.includes(reportFormat)) {
    throw new TmsyncError('invalid_option', `--report-format ${options.reportFormat} is not a report format tmsync reads`, { hint: `choose one of ${REPORT_FORMAT_OPTIONS.join(', ')}` });
  }
  const failOn = parseCoverageKinds(options.failOn ?? []);
  const needsReports = failOn.filter((k) => k === 'unmapped-tests' || k === 'missing-tests');
  if (needsReports.length > 0 && options.args.length === 0) {
    throw new TmsyncError('invalid_arguments', `--fail-on ${needsReports.join(',')} needs report files`, { hint: 'give the reports the tests wrote: tmsync coverage reports/*.xml --fail-on …' });
  }
  if (failOn.includes('unexecuted-cases') && options.testRun === undefined) {
    throw new TmsyncError('invalid_arguments', '--fail-on unexecuted-cases needs --test-run', { hint: 'name the run: --test-run DEMO-R-3' });
  }

  const { config, root } = await loadTargetConfig(options, true);
  const base: CoverageOptions = { root, config, reports: options.args, cwd: options.cwd, format: reportFormat, load: envTuning(io.env).load, ...(io.signal ? { signal: io.signal } : {}) };
  let result: CoverageResult;
  if (options.testRun === undefined) {
    result = await withProblemsShown(coverageOfRepository(base), io);
  } else {
    const target = await loadTarget(options, io);
    try {
      const project = await resolveProject(target.client, target.projectRef);
      result = await withProblemsShown(coverageOfRepository({ ...base, testRun: options.testRun, client: target.client, projectId: project.id, prefix: project.humanIdPrefix }), io);
    } finally {
      await target.close();
    }
  }

  const failures = coverageFailures(result, failOn);
  const failed = Object.keys(failures).length > 0;
  const findings = problemsOf(result, root, options.cwd, failOn);
  const output = render(format, result, findings, { root, cwd: options.cwd, env: io.env, failOn, failed });
  if (options.out !== undefined) {
    const file = resolve(options.cwd, options.out);
    try {
      await writeFile(file, output.endsWith('\n') || output === '' ? output : `${output}\n`, 'utf8');
    } catch (err) {
      throw new TmsyncError('io_error', `cannot write ${options.out}: ${(err as Error).message}`, { hint: 'check that the directory exists and is writable' });
    }
  } else if (output !== '') {
    io.stdout(output);
  }
  if (format !== 'text') io.stderr(headline(result));
  // the annotation and Code Quality runs are a second run beside the report: one summary section is enough
  if (format !== 'github' && format !== 'gitlab') await summary(io, markdown(result, failOn));
  if (failed) {
    const what = Object.entries(failures).map(([k, n]) => `${n} ${k}`).join(', ');
    io.stderr(`Error: coverage check failed (--fail-on): ${what}.`);
    return EXIT.FAILED;
  }
  return EXIT.OK;
}

/** A repository with errors: its problems listed as `validate` lists them, then the error. */
async function withProblemsShown<T>(work: Promise<T>, io: CliIo): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'invalid_repository') {
      for (const p of (err.details?.problems ?? []) as Problem[]) io.stderr(formatProblem(p));
    }
    throw err;
  }
}

function render(format: OutputFormat, result: CoverageResult, findings: Problem[], ctx: { root: string; cwd: string; env: NodeJS.ProcessEnv; failOn: CoverageKind[]; failed: boolean }): string {
  switch (format) {
    case 'text':
      return text(result, findings, ctx.cwd, ctx.root);
    case 'markdown':
      return markdown(result, ctx.failOn);
    case 'json':
      return jsonOutput({ ...result, failOn: ctx.failOn, ok: !ctx.failed });
    case 'github': {
      const base = ctx.env.GITHUB_WORKSPACE || ctx.cwd;
      return findings.map((p) => githubAnnotation(p, relativeTo(base, ctx.root, p.file))).join('\n');
    }
    case 'gitlab':
      return JSON.stringify(codeQualityReport(findings, ctx.root, ctx.env.CI_PROJECT_DIR || ctx.cwd), null, 2);
    default:
      return assertFormat(format);
  }
}

function assertFormat(format: never): never {
  throw new TmsyncError('invalid_option', `--format ${String(format)} is not a coverage output`);
}

/** A path relative to the checkout, `/`-separated (as the Code Quality report makes them). */
function relativeTo(base: string, root: string, file: string): string {
  return codeQualityReport([{ file, line: 1, col: 1, code: 'x', message: '' }], root, base)[0].location.path;
}

/** Each finding as a problem at its file and line: the shape annotations and Code Quality take. */
function problemsOf(result: CoverageResult, root: string, cwd: string, failOn: readonly CoverageKind[]): Problem[] {
  const severity = (kind: CoverageKind) => (failOn.includes(kind) ? {} : { severity: 'warning' as const });
  const name = (c: { id?: string; title: string }) => `${c.id ? `${c.id} ` : ''}"${safeInline(c.title)}"`;
  const out: Problem[] = [];
  for (const c of result.unprovenCases) {
    out.push({ file: c.file, line: c.line, col: 1, code: KIND_WORDS['unproven-cases'].code, message: `${name(c)} is automated, but no automated test maps to it`, hint: 'name its test under `automation: { tests: [...] }`, or put its id in the test', ...severity('unproven-cases') });
  }
  for (const c of result.missingTests) {
    out.push({ file: c.file, line: c.line, col: 1, code: KIND_WORDS['missing-tests'].code, message: `\`automation.tests\` of ${name(c)} names \`${safeInline(c.test)}\`, which no report contains`, hint: 'rename the entry after the test, or remove it if the test is gone', ...severity('missing-tests') });
  }
  for (const t of result.unmappedTests) {
    const also = t.notApplied ? ` (named by the \`automation:\` of ${t.notApplied.join(', ')}, not applied yet: run tmsync apply)` : '';
    // reports are named as given, relative to where tmsync runs
    out.push({ file: resolve(cwd, t.report), line: 1, col: 1, code: KIND_WORDS['unmapped-tests'].code, message: `test \`${safeInline(t.test)}\` maps to no case${also}`, hint: 'name it in a case\'s `automation:`, or put the case\'s id in the test', ...severity('unmapped-tests') });
  }
  for (const c of result.unexecutedCases) {
    out.push({ file: c.file ?? resolve(root, 'tmsync.yaml'), line: c.line ?? 1, col: 1, code: KIND_WORDS['unexecuted-cases'].code, message: `${name({ id: c.humanId ?? c.id, title: c.title })} is ${safeInline(c.status)} in the run`, hint: 'run its test, or take it out of the run', ...severity('unexecuted-cases') });
  }
  return out;
}

const LISTS: Record<CoverageKind, (r: CoverageResult) => readonly unknown[]> = {
  'unproven-cases': (r) => r.unprovenCases,
  'unmapped-tests': (r) => r.unmappedTests,
  'missing-tests': (r) => r.missingTests,
  'unexecuted-cases': (r) => r.unexecutedCases,
};

function headline(r: CoverageResult): string {
  const parts = [`${r.automated} of ${r.cases} cases automated`];
  if (r.tests !== undefined) parts.push(`${r.tests} tests in the reports`);
  if (r.run) parts.push(`run ${r.run.humanId ?? r.run.id}: ${r.run.cases} cases`);
  const counts = r.checked.map((k) => `${LISTS[k](r).length} ${k}`);
  return `Coverage: ${parts.join(', ')}; ${counts.join(', ')}.`;
}

function text(r: CoverageResult, findings: readonly Problem[], cwd: string, root: string): string {
  const lines: string[] = [];
  const byCode = (code: string) => findings.filter((p) => p.code === code);
  for (const kind of r.checked) {
    const found = byCode(KIND_WORDS[kind].code);
    if (found.length === 0) continue;
    lines.push(`${KIND_WORDS[kind].title.replace(/`/g, '')} (${kind}): ${found.length}`);
    for (const p of found.slice(0, 200)) lines.push(`  ${relativeTo(cwd, root, p.file)}:${p.line}  ${p.message}`);
    if (found.length > 200) lines.push(`  … and ${found.length - 200} more (--format json lists all)`);
    lines.push('');
  }
  lines.push(headline(r));
  return lines.join('\n');
}

/** A pull-request comment (and the job summary): counts, then each kind's first findings. */
function markdown(r: CoverageResult, failOn: readonly CoverageKind[]): string {
  const lines = ['### tmsync coverage', '', `**${cell(headline(r).replace(/^Coverage: /, ''))}**`, '', '| Finding | Count | Gate |', '|---|---|---|'];
  for (const k of r.checked) lines.push(`| ${k} | ${LISTS[k](r).length} | ${failOn.includes(k) ? (LISTS[k](r).length > 0 ? 'failed' : 'passed') : '–'} |`);
  const row = (where: string, what: string) => `| \`${cell(where)}\` | ${cell(what)} |`;
  const section = (k: CoverageKind, rows: string[]) => {
    if (rows.length === 0) return;
    lines.push('', `<details><summary>${KIND_WORDS[k].title} (${rows.length})</summary>`, '', '| Where | What |', '|---|---|', ...rows.slice(0, 100));
    if (rows.length > 100) lines.push('', `… and ${rows.length - 100} more`);
    lines.push('', '</details>');
  };
  section('unproven-cases', r.unprovenCases.map((c) => row(`${c.file}:${c.line}`, `${c.id ?? '(new)'} ${c.title}`)));
  section('missing-tests', r.missingTests.map((c) => row(`${c.file}:${c.line}`, c.test)));
  section('unmapped-tests', r.unmappedTests.map((t) => row(t.report, `${t.test}${t.notApplied ? ` (case not applied yet: ${t.notApplied.join(', ')})` : ''}`)));
  section('unexecuted-cases', r.unexecutedCases.map((c) => row(c.file ? `${c.file}:${c.line ?? 1}` : (c.humanId ?? c.id), `${c.humanId ?? c.id} ${c.title} (${c.status})`)));
  return lines.join('\n');
}
