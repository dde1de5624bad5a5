import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SYNC_BASE_FILE } from '../../src/base/base.js';
import { copyExamples } from '../apply/helpers.js';
import { API_KEY, client, editInUi, emulator } from '../support/transfer-helpers.js';

/**
 * Issue 30, item 1: a pull writes only what changed. The examples rely on `defaults:` in tmsync.yaml
 * for type, status, priority, automation type and owner; once applied, one edit on the service is
 * one changed line after `tmsync pull`, and every other file stays byte for byte as it was.
 */

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

/** Every file of the repository's cases and step groups, by path, as bytes. */
async function snapshot(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const visit = async (rel: string) => {
    for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) await visit(p);
      else out.set(p, await readFile(join(root, p)));
    }
  };
  await visit('cases');
  await visit('step_groups');
  return out;
}

/** The files whose bytes differ (the same files on both sides: none created, none removed). */
function changedFiles(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  return [...after].filter(([p, b]) => !b.equals(before.get(p)!)).map(([p]) => p);
}

/** What a line diff of one hunk shows: the lines between the common head and the common tail, on each side. */
function lineDiff(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { removed: a.slice(head, a.length - tail), added: b.slice(head, b.length - tail) };
}

const idOf = (text: string) => /^id: (\S+)$/m.exec(text)![1];

/** A priority's id by name (`Critical`: both dialects' lists hold it, their other names differ). */
async function lookupId(baseUrl: string, list: 'listPriorities', name: string): Promise<string> {
  const c = client(baseUrl);
  try {
    for await (const e of c.paginate(list)) if (e.name === name) return e.id;
  } finally {
    await c.close();
  }
  throw new Error(`no ${name}`);
}

describe('pull writes only what changed (cases relying on tmsync.yaml defaults)', () => {
  let emu: RunningEmulator | undefined;
  let root: string | undefined;
  afterEach(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** The examples applied to a fresh emulator: every case created with the defaults it leaves out. */
  async function applied(): Promise<{ root: string; baseUrl: string }> {
    emu = await emulator();
    root = await copyExamples(emu.baseUrl);
    const r = await tmsync(root, 'apply', '--auto-approve');
    expect(r.code, r.err).toBe(0);
    return { root, baseUrl: emu.baseUrl };
  }

  async function pulled(dir: string): Promise<string[]> {
    const r = await tmsync(dir, 'pull', '--json');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { updated: string[]; created: string[] };
    expect(out.created.filter((f) => f.endsWith('.yaml'))).toEqual([]);
    return out.updated.filter((f) => f.endsWith('.yaml'));
  }

  it('one description edited on the service: that file changes by that one line, every other file is byte-identical', async () => {
    const { root, baseUrl } = await applied();
    const before = await snapshot(root);
    const file = 'cases/Authentication/valid-login.yaml';
    const text = before.get(file)!.toString('utf8');
    await editInUi(baseUrl, 'DEMO', idOf(text), { description: 'A registered user signs in with the right password and sees the dashboard.' });

    expect(await pulled(root)).toEqual([file]);
    const after = await snapshot(root);
    expect(changedFiles(before, after)).toEqual([file]);
    expect(lineDiff(text, after.get(file)!.toString('utf8'))).toEqual({
      removed: ['description: A registered user signs in with the right password.'],
      added: ['description: A registered user signs in with the right password and sees the dashboard.'],
    });
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('a pull with nothing changed on the service writes no case, step group or folder file', async () => {
    const { root } = await applied();
    const before = await snapshot(root);
    expect(await pulled(root)).toEqual([]);
    expect(changedFiles(before, await snapshot(root))).toEqual([]);
  });

  it('a field the file leaves to the defaults, changed on the service, is written: one added line', async () => {
    const { root, baseUrl } = await applied();
    const before = await snapshot(root);
    const file = 'cases/Authentication/admin-audit-log.yaml';
    const text = before.get(file)!.toString('utf8');
    expect(text).not.toMatch(/^priority:/m);
    await editInUi(baseUrl, 'DEMO', idOf(text), { priority_id: await lookupId(baseUrl, 'listPriorities', 'Critical') });

    expect(await pulled(root)).toEqual([file]);
    const after = await snapshot(root);
    expect(changedFiles(before, after)).toEqual([file]);
    expect(lineDiff(text, after.get(file)!.toString('utf8'))).toEqual({ removed: [], added: ['priority: Critical'] });
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.code).toBe(0);
  });

  it('without a sync base, a value equal to the default stays implicit; one that differs is written', async () => {
    const { root, baseUrl } = await applied();
    await rm(join(root, SYNC_BASE_FILE));
    const before = await snapshot(root);
    const file = 'cases/Checkout/guest-checkout.yaml';
    const text = before.get(file)!.toString('utf8');
    expect(text).not.toMatch(/^status:/m);
    await editInUi(baseUrl, 'DEMO', idOf(text), { priority_id: await lookupId(baseUrl, 'listPriorities', 'Critical') });

    expect(await pulled(root)).toEqual([file]);
    const after = await snapshot(root);
    expect(changedFiles(before, after)).toEqual([file]);
    // the file's own `priority:` takes the service's value; status, type, owner… stay the defaults'
    expect(lineDiff(text, after.get(file)!.toString('utf8'))).toEqual({ removed: ['priority: Medium'], added: ['priority: Critical'] });
  });
});
