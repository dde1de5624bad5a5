import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { executePlan } from '../../src/apply/executor.js';
import { fileWriteBack } from '../../src/apply/write-back.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { client, copyExamples, emulator, planFor } from './helpers.js';

describe('executePlan against the emulator', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('applies the examples repository and a second plan is empty', async () => {
    const root = await copyExamples(emu.baseUrl);
    const c = client(emu.baseUrl);
    const { plan } = await planFor(root, c);
    expect(plan.operations.length).toBeGreaterThan(0);
    const result = await executePlan(plan, { client: c, writeBack: fileWriteBack(root) });
    expect(result.failed).toEqual([]);
    expect(result.created).toBe(plan.summary.create);
    const again = await planFor(root, c);
    expect(again.plan.operations).toEqual([]);
    expect(await readFile(join(root, 'cases/Checkout/Payments/saved-card.yaml'), 'utf8')).toMatch(/^id: DEMO-\d+$/m);
    await c.close();
  });
});
