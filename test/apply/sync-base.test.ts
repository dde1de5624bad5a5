import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, writeSynced } from '../../src/apply/engine.js';
import { fileWriteBack } from '../../src/apply/write-back.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { buildPlan } from '../../src/plan/index.js';
import { fetchState } from '../../src/remote/index.js';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { SYNC_BASE_FILE, fieldHash } from '../../src/base/base.js';
import { readSyncBase } from '../../src/base/base-file.js';
import { client, copyExamples, emulator } from './helpers.js';

describe('the write engine and the sync base', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  async function planned(root: string, c: ReturnType<typeof client>) {
    const { config } = await loadConfig(join(root, 'tmsync.yaml'));
    const { state } = await loadRepository(root, config);
    const actual = await fetchState(c, config.project!, { scope: config.scope });
    const { base } = await readSyncBase(root, actual.project.id);
    return { state, actual, base, built: buildPlan(state, actual, { base }) };
  }

  it('records every item a library apply synced when given the base, atomically, and the next plan compares three ways', async () => {
    const root = await copyExamples(emu.baseUrl);
    const c = client(emu.baseUrl);
    try {
      const { state, base, built } = await planned(root, c);
      expect(built.problems).toEqual([]);
      const result = await applyPlan(built.plan, { client: c, root, writeBack: fileWriteBack(root), syncBase: { root, base, records: built.synced! } });
      expect(result.failed).toEqual([]);
      expect(result.syncBaseError).toBeUndefined();
      const again = await readSyncBase(root, built.plan.project.id);
      expect(again.exists).toBe(true);
      expect([...again.base.entries('case')]).toHaveLength(state.cases.length);
      expect([...again.base.entries('step_group')]).toHaveLength(state.stepGroups.length);
      const created = Object.entries(result.ids).find(([k]) => k.startsWith('create_case:'))!;
      const file = created[0].slice('create_case:'.length);
      const title = state.cases.find((x) => x.file === file)!.title;
      const entry = again.base.get('case', created[1].id)!;
      expect(entry.fields.get('title')).toBe(fieldHash(title.trim()));
      // the answer's updated_at is recorded for what the apply changed
      expect(entry.updatedAt).toMatch(/^\d+$/);
      const next = await planned(root, c);
      expect(next.built.plan.operations).toEqual([]);
      expect(next.built.plan.sync).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('forgets an item deleted on both sides, also when the apply has nothing to send', async () => {
    const root = await copyExamples(emu.baseUrl);
    const c = client(emu.baseUrl);
    try {
      const first = await planned(root, c);
      const result = await applyPlan(first.built.plan, { client: c, root, writeBack: fileWriteBack(root), syncBase: { root, base: first.base, records: first.built.synced! } });
      expect(result.failed).toEqual([]);
      const synced = await planned(root, c);
      const gone = synced.state.cases.find((x) => x.id !== undefined)!;
      const made = synced.actual.cases.find((x) => x.id === gone.id || x.humanId === gone.id)!;
      // gone from the repository and from the service
      await rm(join(root, gone.file));
      await c.call('deleteTestCase', { params: { project_id: first.actual.project.id, test_case_id: made.id } });
      const next = await planned(root, c);
      expect(next.base.has('case', made.id)).toBe(true);
      expect(next.built.plan.operations).toEqual([]);
      // as `apply` records a run with nothing to send
      await writeSynced({ root, base: next.base, records: next.built.synced! });
      const after = await readSyncBase(root, first.actual.project.id);
      expect(after.base.has('case', made.id)).toBe(false);
      expect([...after.base.entries('case')]).toHaveLength(next.state.cases.length);
    } finally {
      await c.close();
    }
  });

  it('writes no base for a run given none (migrate, restore, library callers that do not sync)', async () => {
    const root = await copyExamples(emu.baseUrl);
    const c = client(emu.baseUrl);
    try {
      const { state, actual } = await planned(root, c);
      const { plan } = buildPlan(state, actual);
      await applyPlan(plan, { client: c, root, writeBack: fileWriteBack(root) });
      await expect(access(join(root, SYNC_BASE_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await c.close();
    }
  });
});
