import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigYaml } from '../support/demo-config.js';
import { PLAN_FORMAT_VERSION } from '../../src/plan/index.js';
import { OUTPUT_FORMAT_VERSION } from '../../src/cli/json.js';
import { runCli } from '../support/cli.js';
import { buildOutputJsonSchemas, outputSchemas, type OutputName } from '../../src/cli/output-schemas.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { renderJsonSchemaFile } from '../../src/repository/index.js';
import { VERSION } from '../../src/version.js';
import { DATA_KEYS } from '../../src/json-keys.js';
import { seededEmulator } from '../support/emulator.js';

const ROOT = resolve(import.meta.dirname, '../..');
const API_KEY = 'output-schemas-key';

describe('schemas/output/*.schema.json', () => {
  for (const [name, schema] of Object.entries(buildOutputJsonSchemas())) {
    it(`schemas/output/${name} matches src/cli/output-schemas.ts (regenerate with npm run schemas)`, async () => {
      const onDisk = await readFile(join(ROOT, 'schemas', 'output', name), 'utf8').catch(() => '(missing)');
      expect(onDisk === renderJsonSchemaFile(schema), `schemas/output/${name} is out of date: run npm run schemas`).toBe(true);
    });
  }
});

describe("every command's --json document has its documented, versioned shape", () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await mkdtemp(join(tmpdir(), 'tmsync-json-'));
    await writeFile(
      join(root, 'tmsync.yaml'),
      demoConfigYaml(emu.baseUrl, { rate_limit: 500 }),
    );
    await mkdir(join(root, 'cases', 'Auth'), { recursive: true });
    await writeFile(join(root, 'cases', 'Auth', 'login.yaml'), 'title: Log in\nsteps:\n  - action: Open /login\n    expected: The form shows\n');
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Every document printed, by the command line that printed it, for the test of their keys. */
  const emitted: { args: string[]; doc: unknown }[] = [];
  /** The commands each test ran with --json, for the test that every command's document is checked. */
  const covered = new Set<string>();

  /** Runs a command with --json and checks stdout's one document (one line) against its schema. */
  const json = async (schema: OutputName, args: string[], exit = 0, cwd = root) => {
    const { code, io } = await runCli([...args, '--json'], { cwd, env: { TMSYNC_API_KEY: API_KEY, TMSYNC_APP_API_KEY: API_KEY } });
    for (const text of io.out) emitted.push({ args, doc: JSON.parse(text) });
    expect(code, io.err.join('\n')).toBe(exit);
    expect(io.out, args.join(' ')).toHaveLength(1);
    expect(io.out[0], `${args.join(' ')}: one line`).not.toContain('\n');
    const doc = JSON.parse(io.out[0]);
    covered.add(schema);
    const parsed = outputSchemas[schema].safeParse(doc);
    expect(parsed.success, `${args.join(' ')}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    // every document has the output format, but the plan, which is the plan file (its own format_version)
    expect(doc.format_version).toBe(schema === 'plan' ? PLAN_FORMAT_VERSION : OUTPUT_FORMAT_VERSION);
    return doc;
  };

  it('validate, plan, show, apply', async () => {
    expect((await json('validate', ['validate'])).valid).toBe(true);
    expect((await json('export', ['export', 'csv', '--out', 'export.csv'])).counts.test_cases).toBe(1);
    await json('plan', ['plan', '--out', 'plan.json']);
    await json('plan', ['show', 'plan.json']);
    const applied = await json('apply', ['apply', '--auto-approve']);
    expect(applied.result.created).toBeGreaterThan(0);
    expect((await json('apply', ['apply', '--auto-approve'])).result).toBeNull();
  });

  it('plan with problems, and failures of any command: one error shape', async () => {
    await writeFile(join(root, 'cases', 'Auth', 'broken.yaml'), 'title: [unclosed\n');
    try {
      await json('plan-problems', ['plan'], 1);
    } finally {
      await rm(join(root, 'cases', 'Auth', 'broken.yaml'));
    }
    expect((await json('error', ['show', 'missing.json'], 1)).error.code).toBe('plan_file_not_found');
    expect((await json('error', ['plan', '--no-such-flag'], 1)).error.code).toBe('usage');
    expect((await json('error', ['run', 'report', '1'], 1)).error.code).toBe('usage');
  });

  it('pull, backup, test-plan, init', async () => {
    const target = await mkdtemp(join(tmpdir(), 'tmsync-json-pull-'));
    try {
      await json('pull', ['pull', '--dir', target]);
      await json('backup', ['backup', '--out', join(target, 'b.json')]);
      const created = await json('test-plan', ['test-plan', 'create', '--title', 'Release 9']);
      await json('test-plan', ['test-plan', 'get', created.test_plan.id]);
      expect((await json('project', ['project', 'create', '--name', 'Json', '--prefix', 'JSONOUT'])).project.human_id_prefix).toBe('JSONOUT');
      await json('init', ['init'], 0, await mkdtemp(join(tmpdir(), 'tmsync-json-init-')));
      // into another project: what backup wrote
      await json('project', ['project', 'create', '--name', 'Restored', '--prefix', 'JSONRES']);
      const restored = await json('restore', ['restore', join(target, 'b.json'), '--project', 'JSONRES']);
      expect(restored.created.test_cases).toBeGreaterThan(0);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  it('migrate', async () => {
    await json('project', ['project', 'create', '--name', 'Migrated', '--prefix', 'JSONMIG']);
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-json-migrate-'));
    try {
      const profile = (project: string) => `{ base_url: "${emu.baseUrl}", project: ${project}, api_key_env: TMSYNC_API_KEY, rate_limit: 500 }`;
      await writeFile(join(dir, 'tmsync.yaml'), `profiles:\n  src: ${profile('DEMO')}\n  dst: ${profile('JSONMIG')}\n`);
      expect((await json('apply', ['migrate', '--from', 'src', '--to', 'dst', '--auto-approve'], 0, dir)).result.created).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('results push, run trigger, run status, run report: run ids are numbers', async () => {
    const caseId = /^id: (\S+)$/m.exec(await readFile(join(root, 'cases', 'Auth', 'login.yaml'), 'utf8'))?.[1];
    expect(caseId).toBeDefined();
    await writeFile(
      join(root, 'junit.xml'),
      `<testsuite name="auth"><testcase classname="auth" name="logs in"><properties><property name="test_case" value="${caseId}"/></properties></testcase><testcase name="unmatched"/></testsuite>`,
    );
    await json('results-push', ['results', 'push', '--new-run', 'Json dry', '--dry-run', 'junit.xml']);
    const pushed = await json('results-push', ['results', 'push', '--new-run', 'Json push', 'junit.xml']);
    expect(pushed.sent_case_ids, JSON.stringify(pushed)).toHaveLength(1);
    // keyed by the service's status names: data, kept as the service spells them
    expect(pushed.counts).toEqual({ Passed: 1 });
    const made = await json('test-run', ['test-run', 'create', '--title', 'Json shards']);
    await json('results-push', ['results', 'push', '--test-run', made.test_run.id, '--shard', 'one', 'junit.xml']);
    expect((await json('test-run', ['test-run', 'close', made.test_run.id])).already_closed).toBe(false);
    const coverage = await json('coverage', ['coverage', 'junit.xml', '--test-run', pushed.run.human_id as string]);
    expect(coverage.unmapped_tests).toEqual([{ test: 'unmatched', report: 'junit.xml' }]);
    const selection = await json('run-cases', ['run', 'cases', '--test-run', pushed.run.id, '--format', 'grep']);
    expect(selection.cases).toHaveLength(1);

    const plan = (await json('test-plan', ['test-plan', 'create', '--title', 'Json run'])).test_plan.id as string;
    const started = await json('run-trigger', ['run', 'trigger', '--test-plan', plan]);
    expect(typeof started.run.id).toBe('number');
    const status = await json('run-status', ['run', 'status', String(started.run.id)]);
    expect(status.id).toBe(started.run.id);
    const waited = await json('run-trigger', ['run', 'trigger', '--test-plan', plan, '--wait', '--poll', '10ms', '--timeout', '20s']);
    expect(waited.status.id).toBe(waited.run.id);
    const report = await json('run-report', ['run', 'report', String(waited.run.id), '--junit', 'run.xml']);
    expect(report.run_id).toBe(waited.run.id);
  });

  it('import: another tool\'s values keyed as they came', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-json-import-'));
    try {
      const doc = await json('import', ['import', 'testrail-xml', join(ROOT, 'test/fixtures/import/testrail-xml/basic.xml'), '--dir', dir, '--no-service'], 0, dir);
      expect(doc.counts.created).toBeGreaterThan(0);
      expect(Object.keys(doc.proposed_map).length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('import of a test report', async () => {
    await writeFile(join(root, 'report.xml'), '<testsuite name="s"><testcase classname="com.shop.A" name="new test"/></testsuite>');
    const doc = await json('import-reports', ['import', 'junit', 'report.xml', '--dry-run', '--no-service']);
    expect(doc.created).toHaveLength(1);
  });

  it('--version', async () => {
    expect((await json('version', ['--version'])).version).toBe(VERSION);
  });

  // `serve` runs until it is stopped: its document is checked in test/cli/terminal.e2e.test.ts
  const ELSEWHERE: ReadonlySet<OutputName> = new Set(['serve']);

  it('no document printed above has a camelCase key', () => {
    const camel = emitted.flatMap(({ args, doc }) => camelCaseKeys(doc).map((path) => `${args.join(' ')}: ${path}`));
    expect(camel, 'keys are snake_case in every --json document (docs/cli.md)').toEqual([]);
    expect(emitted.length).toBeGreaterThan(20);
  });

  it('every documented document was printed and checked above', () => {
    const unchecked = (Object.keys(outputSchemas) as OutputName[]).filter((name) => !covered.has(name) && !ELSEWHERE.has(name));
    expect(unchecked, 'a document with a schema that no command above printed').toEqual([]);
  });
});

/** The path of every key in `value` with a capital letter, but in the maps that are data (ids or the service's names as keys). */
function camelCaseKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => camelCaseKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(/[A-Z]/.test(k) ? [`${path}.${k}`] : []),
    ...(DATA_KEYS.has(k) ? [] : camelCaseKeys(v, `${path}.${k}`)),
  ]);
}
