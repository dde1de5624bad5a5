import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { IMPORT_FORMATS } from '../../src/import/format-names.js';
import { runCli } from '../support/cli.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'import-e2e-key';
const FIXTURES = resolve(import.meta.dirname, '../fixtures/import');

/** Each format's representative export: test/fixtures/import/<format>/basic.<ext>. */
async function basicExports(): Promise<{ format: string; file: string }[]> {
  const out: { format: string; file: string }[] = [];
  for (const format of IMPORT_FORMATS) {
    const files = await readdir(join(FIXTURES, format)).catch(() => [] as string[]);
    const basic = files.find((f) => f.startsWith('basic.'));
    if (basic) out.push({ format, file: join(FIXTURES, format, basic) });
  }
  return out;
}

const exports = await basicExports();

type PlanDoc = { operations: { kind: string; write_back?: { file: string } }[] };
type ImportDoc = { files: { action: string; kind: string; path: string }[]; counts: { created: number; unchanged: number } };

describe.runIf(exports.length > 0)('import → validate → plan → apply → import again → no changes, against the emulator', () => {
  let emu: RunningEmulator;
  const dirs: string[] = [];
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  const tmsync = (cwd: string, ...args: string[]) => runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });

  it.each(exports)('$format', async ({ format, file }) => {
    const root = await mkdtemp(join(tmpdir(), `tmsync-import-${format}-`));
    dirs.push(root);
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl, { rate_limit: 500 }));

    const imported = await tmsync(root, '--json', 'import', format, file, '--folder', `Imported ${format}`);
    expect(imported.code, imported.err).toBe(0);
    const doc = JSON.parse(imported.out) as ImportDoc;
    const items = doc.files.filter((f) => f.kind !== 'folder');
    expect(items.length, 'the basic export holds cases').toBeGreaterThan(0);
    expect(items.every((f) => f.action === 'create')).toBe(true);
    expect(await readFile(join(root, 'import-report.md'), 'utf8')).toContain(`format \`${format}\``);

    const validated = await tmsync(root, 'validate');
    expect(validated.code, validated.err).toBe(0);

    // exact creates: one per file the import wrote, each writing back into that file
    const planned = await tmsync(root, 'plan', '--format', 'json');
    expect(planned.code, planned.err).toBe(0);
    const plan = JSON.parse(planned.out) as PlanDoc;
    const creates = plan.operations.filter((o) => o.kind === 'create_case' || o.kind === 'create_step_group').map((o) => o.write_back?.file).sort();
    expect(creates).toEqual(items.map((f) => f.path).sort());
    expect(plan.operations.filter((o) => !o.kind.startsWith('create_'))).toEqual([]);

    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
    const again = await tmsync(root, '--json', 'import', format, file, '--folder', `Imported ${format}`);
    expect(again.code, again.err).toBe(0);
    const second = JSON.parse(again.out) as ImportDoc;
    expect(second.files).toEqual([]);
    expect(second.counts.unchanged).toBe(items.length);
    const after = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(after.code, after.out + after.err).toBe(0);
  });
});
