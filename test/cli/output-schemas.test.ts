import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigYaml } from '../support/demo-config.js';
import { PLAN_FORMAT_VERSION } from '../../src/plan/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { buildOutputJsonSchemas, outputSchemas, type OutputName } from '../../src/cli/output-schemas.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { renderJsonSchemaFile } from '../../src/repository/index.js';

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
    emu = await startEmulator({ memory: true, apiKeys: [API_KEY], seed: 'demo', port: 0 });
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

  /** Runs a command with --json and checks stdout's one document against its schema. */
  const json = async (schema: OutputName, args: string[], exit = 0, cwd = root) => {
    const io = memoryIo({ TMSYNC_API_KEY: API_KEY });
    const code = await main(['node', 'tmsync', ...args, '--json'], io, cwd);
    expect(code, io.err.join('\n')).toBe(exit);
    expect(io.out, args.join(' ')).toHaveLength(1);
    const doc = JSON.parse(io.out[0]);
    const parsed = outputSchemas[schema].safeParse(doc);
    expect(parsed.success, `${args.join(' ')}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    // every document is format 1, but the plan, which is the plan file (its own format_version)
    expect(doc.format_version).toBe(schema === 'plan' ? PLAN_FORMAT_VERSION : 1);
    return doc;
  };

  it('validate, plan, show, apply', async () => {
    expect((await json('validate', ['validate'])).valid).toBe(true);
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
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });
});
