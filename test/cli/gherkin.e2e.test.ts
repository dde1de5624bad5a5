import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { resolveProject } from '../../src/remote/index.js';
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator } from '@cucumber/messages';
import { runCli } from '../support/cli.js';
import { API_KEY, client, editInUi, emptyProject, emulator } from '../support/transfer-helpers.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/gherkin');
const FEATURES = ['cart.feature', 'paiement.feature', 'rireki.feature'];

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

/** The file without the id tags apply wrote: a tag appended to a tag line, or a line of its own. */
function withoutIdTags(text: string, prefix: string): string {
  return text.replace(new RegExp(`^[ \\t]*@${prefix}-\\d+\\r?\\n`, 'gm'), '').replace(new RegExp(` @${prefix}-(SG-)?\\d+`, 'g'), '');
}

interface Op {
  kind: string;
  path?: string[];
  body?: { title?: string };
  write_back?: { file: string };
}

describe('.feature files as test cases, end to end', () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await emulator();
    emptyProject(emu, 'GHK');
    root = await mkdtemp(join(tmpdir(), 'tmsync-gherkin-'));
    await writeFile(
      join(root, 'tmsync.yaml'),
      `project: GHK\nbase_url: ${emu.baseUrl}\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: ana@example.com\n`,
    );
    await mkdir(join(root, 'cases/Shop'), { recursive: true });
    for (const f of [...FEATURES, 'legacy.yaml']) await copyFile(join(FIXTURES, f), join(root, 'cases/Shop', f));
  });
  afterAll(async () => {
    await emu?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('validates, plans, applies with id tags written back, plans no changes, and pulls a step edited on the service into the file', async () => {
    const validate = await tmsync(root, 'validate');
    expect(validate.err + validate.out).not.toMatch(/error/i);
    expect(validate.code).toBe(0);

    const planned = await tmsync(root, 'plan', '--format', 'json');
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.out) as { operations: Op[]; warnings: { code: string; message: string }[] };
    const creates = (kind: string) => plan.operations.filter((op) => op.kind === kind);
    expect(creates('create_folder').map((op) => op.path!.join('/')).sort()).toEqual(['Shop', 'Shop/Cart', 'Shop/Cart/Discounts', 'Shop/Paiement', 'Shop/注文履歴 🛒']);
    expect(creates('create_case').map((op) => `${op.path!.join('/')}: ${op.body!.title} <- ${op.write_back!.file}`).sort()).toEqual([
      'Shop/Cart/Discounts: Buy <n> items <- cases/Shop/cart.feature#3',
      'Shop/Cart: Add an item <- cases/Shop/cart.feature#1',
      'Shop/Cart: Remove the last item <- cases/Shop/cart.feature#2',
      'Shop/Paiement: Payer par carte <- cases/Shop/paiement.feature#1',
      'Shop/注文履歴 🛒: 履歴を見る <- cases/Shop/rireki.feature#1',
      'Shop: Legacy YAML case <- cases/Shop/legacy.yaml',
    ]);
    // one step group per background
    expect(creates('create_step_group').map((op) => `${op.body!.title} <- ${op.write_back!.file}`).sort()).toEqual([
      'Background: Cart <- cases/Shop/cart.feature#background',
      'Contexte: Paiement <- cases/Shop/paiement.feature#background',
    ]);
    // @wip names no label of the service: kept in the file, not sent, counted
    expect(plan.warnings.find((w) => w.code === 'unknown_tags_kept')?.message).toMatch(/@wip \(1\)/);

    const before = new Map<string, string>();
    for (const f of FEATURES) before.set(f, await readFile(join(root, 'cases/Shop', f), 'utf8'));
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.err).not.toMatch(/could not be written/);
    expect(applied.code).toBe(0);

    const cart = await readFile(join(root, 'cases/Shop/cart.feature'), 'utf8');
    expect(cart).toMatch(/^@smoke @GHK-SG-\d+\n/m);
    expect(cart).toMatch(/^ {2}@regression @wip @GHK-\d+\n {2}Scenario: Add an item\n/m);
    expect(cart).toMatch(/^ {2}@GHK-\d+\n {2}Scenario: {3}Remove the last item {3}\n/m);
    expect(cart).toMatch(/^ {4}@GHK-\d+\n {4}Scenario Outline: Buy <n> items\n/m);
    const paiement = await readFile(join(root, 'cases/Shop/paiement.feature'), 'utf8');
    expect(paiement).toMatch(/^@payments @GHK-SG-\d+\r\n/m);
    expect(paiement).toMatch(/^ {2}@GHK-\d+\r\n {2}Scénario: Payer par carte\r\n/m);
    const rireki = await readFile(join(root, 'cases/Shop/rireki.feature'), 'utf8');
    expect(rireki).toMatch(/^\t@GHK-\d+\n\tシナリオ: 履歴を見る\n/m);
    // every other byte as it was
    for (const f of FEATURES) expect(withoutIdTags(await readFile(join(root, 'cases/Shop', f), 'utf8'), 'GHK')).toBe(before.get(f));
    expect(await readFile(join(root, 'cases/Shop/legacy.yaml'), 'utf8')).toMatch(/^id: GHK-\d+\n/);

    const again = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(again.err + again.out).toContain('No changes');
    expect(again.code).toBe(0);

    // someone edits a step on the service: the expected result of "When I remove"
    const removeId = /@(GHK-\d+)\n {2}Scenario: {3}Remove/.exec(cart)![1];
    const c = client(emu.baseUrl);
    let steps: { step_description?: string | null; expected_results?: string | null; order: number; step_group_id?: string | null }[] = [];
    try {
      const project = await resolveProject(c, 'GHK');
      for await (const tc of c.paginate('listTestCases', { params: { project_id: project.id } })) {
        if (tc.human_id === removeId) steps = (tc as unknown as { individual_steps: typeof steps }).individual_steps;
      }
    } finally {
      await c.close();
    }
    const edited = steps.map((s) => ({
      step_description: s.step_description ?? null,
      expected_results: s.expected_results === 'Then the cart is empty' ? 'Then the cart is empty\nAnd the badge shows 0' : (s.expected_results ?? null),
      order: s.order,
      step_group_id: s.step_group_id ?? null,
    }));
    expect(edited.some((s) => s.expected_results?.includes('badge'))).toBe(true);
    await editInUi(emu.baseUrl, 'GHK', removeId, { individual_steps: edited });

    const pulled = await tmsync(root, 'pull');
    expect(pulled.err).not.toMatch(/error/i);
    expect(pulled.code).toBe(0);
    const after = await readFile(join(root, 'cases/Shop/cart.feature'), 'utf8');
    // that step is rewritten in Gherkin, in place; nothing else in the file changed
    expect(after).toBe(cart.replace('    Then the cart is empty\n', '    Then the cart is empty\n    And the badge shows 0\n'));
    expect(await readFile(join(root, 'cases/Shop/paiement.feature'), 'utf8')).toBe(paiement);
    // the steps agree now (the live dialect's full update of the edit above drops the case's
    // labels, which the file then sends again: labels are not written into .feature files)
    const settled = JSON.parse((await tmsync(root, 'plan', '--format', 'json')).out) as { operations: { changes?: { field: string }[] }[] };
    expect(settled.operations.flatMap((op) => op.changes ?? []).filter((c) => c.field !== 'labels')).toEqual([]);

    // a Cucumber run of these very files, pushed into a new run: every scenario maps by its id tag
    const report = await cucumberReport(root, FEATURES.map((f) => `cases/Shop/${f}`));
    await writeFile(join(root, 'cucumber.json'), JSON.stringify(report));
    const scenarios = report.reduce((n, f) => n + f.elements.length, 0);
    const pushed = await tmsync(root, '--json', 'results', 'push', 'cucumber.json', '--new-run', 'Cucumber run');
    expect(pushed.code, pushed.err).toBe(0);
    const out = JSON.parse(pushed.out) as { formats: string[]; testcases: number; unmatched: unknown[]; unknown_cases: unknown[] };
    expect(out.formats).toEqual(['cucumber-json']);
    expect(out.testcases).toBe(scenarios);
    expect(out.unmatched).toEqual([]);
    expect(out.unknown_cases).toEqual([]);
  });
});

/** What cucumber-js writes for a run of `files` where every step passed: one element per pickle (outline rows apart). */
async function cucumberReport(root: string, files: readonly string[]) {
  const out: { uri: string; name: string; keyword: string; elements: { name: string; keyword: string; type: string; tags: { name: string; line: number }[]; steps: { keyword: string; name: string; result: { status: string } }[] }[] }[] = [];
  for (const uri of files) {
    const text = await readFile(join(root, uri), 'utf8');
    const document = new Parser(new AstBuilder(IdGenerator.uuid()), new GherkinClassicTokenMatcher()).parse(text);
    const pickles = compile(document, uri, IdGenerator.uuid());
    out.push({
      uri,
      name: document.feature!.name,
      keyword: document.feature!.keyword,
      elements: pickles.map((p) => ({
        name: p.name,
        keyword: 'Scenario',
        type: 'scenario',
        tags: p.tags.map((t) => ({ name: t.name, line: 1 })),
        steps: p.steps.map((st) => ({ keyword: 'Given ', name: st.text, result: { status: 'passed' } })),
      })),
    });
  }
  return out;
}
