import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { executePlan } from '../../src/apply/executor.js';
import { fileWriteBack } from '../../src/apply/write-back.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { client, copyExamples, emulator, planFor, serviceSnapshot } from './helpers.js';

async function edit(file: string, from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit did not apply to ${file}`);
  await writeFile(file, next);
}

describe('apply after edits to an applied repository', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('plans exactly the edits (title, step order, move, folder rename, step group), applies them, and converges', async () => {
    const root = await copyExamples(emu.baseUrl);
    const c = client(emu.baseUrl);
    const first = await planFor(root, c);
    const applied = await executePlan(first.plan, { client: c, writeBack: fileWriteBack(root) });
    expect(applied.failed).toEqual([]);
    expect((await planFor(root, c)).plan.operations).toEqual([]);

    const cases = join(root, 'cases');
    await edit(join(cases, 'Authentication/valid-login.yaml'), 'title: Log in with valid credentials', 'title: Log in with valid credentials and 2FA');
    await edit(
      join(cases, 'Authentication/locked-account.yaml'),
      /steps:\n([\s\S]*?)( {2}- action: Sign in as bob[\s\S]*)$/,
      'steps:\n$2$1',
    );
    await rename(join(cases, 'Checkout/guest-checkout.yaml'), join(cases, 'Checkout/Payments/guest-checkout.yaml'));
    await rename(join(cases, 'Authentication'), join(cases, 'Auth'));
    await edit(join(root, 'step_groups/login-as-admin.yaml'), 'expected: The dashboard shows', 'expected: The admin dashboard shows');

    const second = await planFor(root, c);
    const ops = second.plan.operations.map((op) => `${op.kind} ${'path' in op ? op.path.join('/') : ''} ${'title' in op ? op.title : 'body' in op ? op.body.title : ''}`.trim());
    const changed = (title: string) => second.plan.operations.find((op) => op.kind === 'update_case' && op.body.title === title);
    expect(second.plan.operations.map((op) => op.kind).sort()).toEqual([
      'move_case',
      'update_case', // title
      'update_case', // steps reordered
      'update_case', // saved-card: uses the changed step group
      'update_case', // admin-audit-log: uses the changed step group
      'update_folder',
      'update_step_group',
    ]);
    const changedFields = (title: string) => {
      const op = changed(title);
      return op?.kind === 'update_case' && op.changes.map((ch) => ch.field);
    };
    expect(changedFields('Log in with valid credentials and 2FA')).toEqual(['title']);
    expect(changedFields('A locked account cannot sign in')).toEqual(['steps']);
    expect(ops).toContain('move_case Checkout/Payments Guest checkout without an account');
    expect(ops).toContain('update_folder Auth');

    const result = await executePlan(second.plan, { client: c, writeBack: fileWriteBack(root) });
    expect(result).toMatchObject({ failed: [], skipped: [], created: 0, deleted: 0, moved: 1, updated: 6 });
    expect((await planFor(root, c)).plan.operations).toEqual([]);
    const snap = await serviceSnapshot(c);
    expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
    expect(snap.actual.folders.map((f) => f.name).sort()).toEqual(['Auth', 'Checkout', 'Payments']);
    await c.close();
  });
});
