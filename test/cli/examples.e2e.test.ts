import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, copyExamples, emulator } from '../apply/helpers.js';

let emu: RunningEmulator;
let root: string;

beforeAll(async () => {
  emu = await emulator();
  root = await copyExamples(emu.baseUrl);
});
afterAll(async () => {
  await emu?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function tmsync(args: string[]) {
  return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY } });
}

describe('examples/ (what `npm run demo` applies)', () => {
  it('applies against the dialect under test (its lookup names exist in both) and then plans no change', async () => {
    const applied = await tmsync(['apply', '--auto-approve']);
    expect(applied.code, applied.err).toBe(0);
    expect(`${applied.out}\n${applied.err}`).toMatch(/Apply complete: \d+ created/);
    const again = await tmsync(['plan']);
    expect(again.code, again.err).toBe(0);
    expect(`${again.out}\n${again.err}`).toContain('No changes');
  });
});
