import { TmsyncError } from '../../errors.js';
import { resolveProject } from '../../remote/resolve-project.js';
import { scanAutomation } from '../../results/automation-scan.js';
import { readRunSelection } from '../../runs/run-selection.js';
import { formatSelection, RUNNER_FILTER_FORMATS, type RunnerFilterFormat, type SelectedCase } from '../../runs/runner-filters.js';
import { safeInline, safeLineStart } from '../../safe-text.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';
import { plural } from '../words.js';

interface RunCasesOptions extends GlobalOptions {
  testRun?: string;
  testPlan?: string;
  /** @default 'list' */
  format?: string;
  /** run status names, repeatable or comma-separated */
  status?: string[];
}

/**
 * `tmsync run cases (--test-run ID | --test-plan ID) --format …`: the selection on stdout in the
 * runner's form (docs/automation.md), the counts on stderr. An empty selection prints a filter
 * that matches no test (a missing filter would run every test) and exits 0; cases without a human
 * id are counted on stderr (no test name can carry them).
 */
export async function runRunCases(options: RunCasesOptions, io: CliIo): Promise<number> {
  const format = (options.format ?? 'list') as RunnerFilterFormat;
  if (!RUNNER_FILTER_FORMATS.includes(format)) {
    throw new TmsyncError('invalid_arguments', `--format ${options.format} is not a runner format`, { hint: `choose one of ${RUNNER_FILTER_FORMATS.join(', ')}` });
  }
  const statuses = (options.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    const selection = await readRunSelection({
      client: target.client,
      project,
      ...(options.testRun !== undefined ? { testRun: options.testRun } : {}),
      ...(options.testPlan !== undefined ? { testPlan: options.testPlan } : {}),
      ...(statuses.length > 0 ? { statuses } : {}),
      signal: io.signal,
    });
    // Allure's selectors: the tests each case file names (only read for that format, and only with a repository)
    const testsById = format === 'testplan-json' && target.configFile !== undefined ? await testsByCase(target.root, target.config.casesDir) : new Map<string, string[]>();
    const selected: SelectedCase[] = selection.cases.flatMap((c) => (c.humanId ? [{ humanId: c.humanId, tests: testsById.get(c.humanId.toUpperCase()) ?? testsById.get(c.id) ?? [] }] : []));
    const output = formatSelection(format, selected);
    if (options.json) {
      io.stdout(jsonOutput({ source: selection.source, statuses: selection.statuses ?? [], format, cases: selection.cases, output }));
    } else if (output !== '') {
      // a list is the service's human ids as given, each kept on its line; the other forms hold only ids that parsed
      io.stdout(format === 'list' ? output.split('\n').map((id) => safeLineStart(safeInline(id))).join('\n') : output);
    }
    const from = selection.source.kind === 'test_run' ? `test run ${safeInline(selection.source.humanId ?? selection.source.id)}` : `test plan ${safeInline(selection.source.humanId ?? selection.source.id)} (${plural(selection.source.runs.length, 'run')})`;
    const narrowed = selection.statuses ? ` with status ${selection.statuses.map(safeInline).join(' or ')}` : '';
    io.stderr(`${plural(selected.length, 'case')} of ${from}${narrowed}.`);
    if (selected.length === 0) io.stderr(`The selection is empty: the ${format === 'list' ? 'list is empty' : 'filter printed matches no test'}.`);
    if (selection.withoutHumanId > 0) io.stderr(`${plural(selection.withoutHumanId, 'case')} without a human id left out (no test name can carry them).`);
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

/** human id or id (upper-cased) → the tests its case file names. */
async function testsByCase(root: string, casesDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const e of await scanAutomation(root, casesDir)) if (e.id && e.tests.length > 0) out.set(e.id.toUpperCase(), e.tests);
  return out;
}
