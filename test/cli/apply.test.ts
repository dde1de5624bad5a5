import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdir, readFile, stat, writeFile, access, readdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runApply, type ApplyOptions } from '../../src/cli/commands/apply.js';
import { memoryIo, type CliIo } from '../../src/cli/io.js';
import { PLAN_FORMAT_VERSION, renderPlanJson } from '../../src/plan/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { main } from '../../src/cli/main.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, planFor, serviceSnapshot } from '../apply/helpers.js';

const opts = (cwd: string, extra: Partial<ApplyOptions> = {}): ApplyOptions => ({
  cwd,
  json: false,
  verbose: false,
  color: { stdout: false, stderr: false },
  autoApprove: true,
  prune: false,
  allowRecreate: false,
  args: [],
  ...extra,
});
const io = () => memoryIo({ TMSYNC_API_KEY: API_KEY });
/** Everything printed, on either stream (where each line goes: 'prints the result on stdout…'). */
const text = (x: { out: string[]; err: string[] }) => [...x.out, ...x.err].join('\n');
const creates = (emu: RunningEmulator) => emu.requestLog().filter((e) => e.method === 'POST' && /\/(folders|test_cases|step_groups)$/.test(e.path.split('?')[0]));

/** Makes a file unwritable even for root (chmod, else chattr +i); false when neither works here. */
async function makeReadOnly(file: string): Promise<boolean> {
  await chmod(file, 0o444);
  try {
    await writeFile(file, await readFile(file, 'utf8'), { flag: 'r+' });
  } catch {
    return true;
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    await writeFile(file, await readFile(file, 'utf8'), { flag: 'r+' });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' || (err as NodeJS.ErrnoException).code === 'EACCES';
  }
  return false;
}
async function makeWritable(file: string): Promise<void> {
  try {
    execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
  } catch {
    // not immutable
  }
  await chmod(file, 0o644);
}

describe('tmsync apply (in process, against the emulator)', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });
  const fresh = async () => {
    // each test gets its own project state: delete what earlier tests made
    const c = client(emu.baseUrl);
    const snap = await serviceSnapshot(c);
    const p = { project_id: snap.actual.project.id };
    for (const x of snap.actual.cases) await c.call('deleteTestCase', { params: { ...p, test_case_id: x.id } });
    for (const g of snap.actual.stepGroups) await c.call('deleteStepGroup', { params: { ...p, step_group_id: g.id } });
    const depth = (id: string | null): number => (id ? 1 + depth(snap.actual.folders.find((f) => f.id === id)?.parentId ?? null) : 0);
    for (const f of [...snap.actual.folders].sort((a, b) => depth(b.id) - depth(a.id))) {
      await c.call('deleteFolder', { params: { ...p, folder_id: f.id } });
    }
    await c.close();
    emu.clearRequestLog();
    return copyExamples(emu.baseUrl);
  };

  it('applies the examples, reports the contract summary line, writes ids back, and a second apply changes nothing', async () => {
    const root = await fresh();
    const out = io();
    expect(await runApply(opts(root), out)).toBe(0);
    expect(text(out)).toContain('Apply complete: 10 created, 0 updated, 0 moved, 0 deleted.');
    expect(await readFile(join(root, 'cases/Checkout/Payments/saved-card.yaml'), 'utf8')).toMatch(/^id: DEMO-\d+$/m);
    expect(await readFile(join(root, 'cases/Checkout/Payments/_folder.yaml'), 'utf8')).toMatch(/^id: [0-9a-f-]{36}$/m);
    expect(await readFile(join(root, 'step_groups/login-as-admin.yaml'), 'utf8')).toMatch(/^id: DEMO-SG-\d+$/m);
    // the journal of a fully successful run is rotated
    expect(await readdir(join(root, '.tmsync'))).toContain('journal.jsonl.prev');
    await expect(access(join(root, '.tmsync/journal.jsonl'))).rejects.toThrow();

    emu.clearRequestLog();
    const again = io();
    expect(await runApply(opts(root), again)).toBe(0);
    expect(text(again)).toContain('No changes. The service matches the repository.');
    expect(emu.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    const c = client(emu.baseUrl);
    expect((await planFor(root, c)).plan.operations).toEqual([]);
    await c.close();
    // and the plan command agrees: no changes
    expect(await main(['node', 'tmsync', 'plan', '--detailed-exitcode'], io(), root)).toBe(0);
  });

  it('prints the result (the plan and the summary line) on stdout, progress on stderr; with --json stdout holds only the document (issue 30 item 3)', async () => {
    const root = await fresh();
    const out = io();
    expect(await runApply(opts(root), out)).toBe(0);
    const stdout = out.out.join('');
    expect(stdout).toMatch(/^tmsync will perform the following actions on project DEMO/);
    expect(stdout).toContain('Plan: 10 to create');
    expect(stdout).toContain('Apply complete: 10 created, 0 updated, 0 moved, 0 deleted.');
    const stderr = out.err.join('\n');
    expect(stderr).not.toContain('tmsync will perform');
    expect(stderr).not.toContain('Apply complete');

    await writeFile(join(root, 'cases/Checkout/extra.yaml'), 'title: Extra\n');
    const json = io();
    expect(await runApply(opts(root, { json: true }), json)).toBe(0);
    expect(json.out).toHaveLength(1);
    expect(JSON.parse(json.out[0]).result.created).toBe(1);
    expect(json.err.join('\n')).toContain('tmsync will perform');
    expect(json.err.join('\n')).toContain('Apply complete: 1 created');

    const quiet = io();
    await writeFile(join(root, 'cases/Checkout/extra-2.yaml'), 'title: Extra 2\n');
    expect(await runApply(opts(root, { quiet: true }), quiet)).toBe(0);
    expect(quiet.out.slice(0, 2)).toEqual(['Plan: 1 to create, 0 to update, 0 to move, 0 to delete.', 'Apply complete: 1 created, 0 updated, 0 moved, 0 deleted.']);
    expect(quiet.out.slice(2)).toEqual([expect.stringMatching(/^View project: http/)]);
  });

  for (const [name, faults] of [
    ['seeded 500s, dropped connections and a rate limit of 20/s', { failRate: 0.1, resetRate: 0.05, rateLimit: 20, faultSeed: 11 }],
    ['faults that hit creates after the service stored them', { failRate: 0.1, resetRate: 0.1, faultSeed: 5, failAfterCommit: true }],
  ] as const) {
    it(`converges under ${name}: exit 0, the service holds exactly the repository, no duplicates`, async () => {
      const root = await fresh();
      const generated = await addGenerated(root, ['Gen', 'Gen/A', 'Gen/B'], 5);
      const cfg = join(root, 'tmsync.yaml');
      await writeFile(cfg, (await readFile(cfg, 'utf8')).replace(/^rate_limit:.*$/m, 'rate_limit: 18'));
      emu.setFaults(faults);
      let code: number;
      const out = io();
      try {
        code = await runApply(opts(root), out);
      } finally {
        emu.setFaults({ failRate: 0, resetRate: 0, rateLimit: undefined, failAfterCommit: false });
      }
      expect(code, text(out)).toBe(0);
      expect(emu.requestLog().some((e) => e.fault !== undefined && e.fault !== 'rate_limit')).toBe(true);
      const c = client(emu.baseUrl);
      expect((await planFor(root, c)).plan.operations).toEqual([]);
      const snap = await serviceSnapshot(c);
      expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
      expect(snap.actual.cases).toHaveLength(6 + generated);
      expect(snap.actual.folders).toHaveLength(6);
      await c.close();
    });
  }

  it('refuses to apply without a terminal unless --auto-approve is given, naming the flag', async () => {
    const root = await fresh();
    await expect(runApply(opts(root, { autoApprove: false }), io())).rejects.toMatchObject({ code: 'approval_required', hint: expect.stringContaining('--auto-approve') });
    expect(creates(emu)).toEqual([]);
  });

  it("asks on a terminal and applies only after the answer 'yes'", async () => {
    const root = await fresh();
    const asked: string[] = [];
    const tty = (answer: string): CliIo => ({ ...io(), isTTY: true, prompt: async (q) => (asked.push(q), answer) });
    const no = tty('y');
    expect(await runApply(opts(root, { autoApprove: false }), no)).toBe(1);
    expect(creates(emu)).toEqual([]);
    expect(await runApply(opts(root, { autoApprove: false }), tty('yes'))).toBe(0);
    expect(asked[0]).toBe("Do you want to perform these actions? Only 'yes' will be accepted: ");
    expect(creates(emu).length).toBe(10);
  });

  it('shows the plan on the terminal it asks on also when stdout goes to a file, and the file gets it too', async () => {
    const root = await fresh();
    const asked = { ...io(), isTTY: true, stdoutIsTTY: false, prompt: async () => 'no' };
    expect(await runApply(opts(root, { autoApprove: false }), asked)).toBe(1);
    expect(asked.out.join('')).toContain('Plan: 10 to create');
    expect(asked.err.join('')).toContain('Plan: 10 to create');
    // stdout on the terminal: shown once
    const onTerminal = { ...io(), isTTY: true, stdoutIsTTY: true, prompt: async () => 'no' };
    expect(await runApply(opts(root, { autoApprove: false }), onTerminal)).toBe(1);
    expect(onTerminal.out.join('')).toContain('Plan: 10 to create');
    expect(onTerminal.err.join('')).not.toContain('Plan: 10 to create');
  });

  it('plan, show and apply take --compact and --no-compact (issue 30 item 11)', async () => {
    const root = await fresh();
    const run = async (...args: string[]) => {
      const x = io();
      expect(await main(['node', 'tmsync', ...args, '--no-color'], x, root), x.err.join('\n')).toBe(0);
      return x.out.join('');
    };
    // 10 operations: in full unless asked
    expect(await run('plan')).toContain('+ case Checkout/Payments › Pay with a saved card');
    const compact = await run('plan', '--compact', '--out', 'plan.json');
    expect(compact).toMatch(/^Folder +\+ create\n/m);
    expect(compact).not.toContain('Pay with a saved card');
    expect(await run('show', 'plan.json', '--compact')).toBe(compact);
    expect(await run('show', 'plan.json')).toContain('Pay with a saved card');
    expect(await run('show', 'plan.json', '--format', 'markdown', '--compact')).toContain('<summary>Per folder (10 operations)</summary>');
    const applied = await run('apply', '--auto-approve', '--compact');
    expect(applied).toMatch(/^Folder +\+ create\n/m);
    expect(applied).toContain('Apply complete: 10 created');
  });

  it('applies a saved plan exactly, and refuses it once an item it touches changed on the service', async () => {
    const root = await fresh();
    expect(await runApply(opts(root), io())).toBe(0);
    // two edits: one saved plan applied as is, one made stale by a change on the service
    const file = join(root, 'cases/Authentication/valid-login.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('title: Log in with valid credentials', 'title: Log in, valid credentials'));
    const c = client(emu.baseUrl);
    const { plan } = await planFor(root, c);
    expect(plan.operations.map((o) => o.kind)).toEqual(['update_case']);
    const planFile = join(root, 'plan.json');
    await writeFile(planFile, renderPlanJson(plan));
    const humanId = /^id: (\S+)$/m.exec(await readFile(file, 'utf8'))![1];
    await c.call('updateTestCase', { params: { project_id: plan.project.id, test_case_id: humanId }, body: { description: 'changed by hand' } });
    const stale = runApply(opts(root, { args: ["plan.json"] }), io());
    // updated_at has one-second resolution: within the same second the fresh plan names the change
    await expect(stale).rejects.toMatchObject({
      code: 'stale_plan',
      message: expect.stringMatching(new RegExp(`case ${humanId} changed on the service|update case ${humanId} \\(cases/Authentication/valid-login\\.yaml\\): would now be planned differently`)),
    });

    const replanned = await planFor(root, c);
    await writeFile(planFile, renderPlanJson(replanned.plan));
    const out = io();
    expect(await runApply(opts(root, { args: ['plan.json'] }), out)).toBe(0);
    expect(text(out)).toContain('Apply complete: 0 created, 1 updated, 0 moved, 0 deleted.');
    expect((await planFor(root, c)).plan.operations).toEqual([]);
    await c.close();
  });

  it('refuses a saved plan when the repository changed since it was saved', async () => {
    const root = await fresh();
    const c = client(emu.baseUrl);
    await writeFile(join(root, 'plan.json'), renderPlanJson((await planFor(root, c)).plan));
    await c.close();
    const file = join(root, 'cases/Checkout/guest-checkout.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('Guest checkout without an account', 'Guest checkout'));
    await expect(runApply(opts(root, { args: ['plan.json'] }), io())).rejects.toMatchObject({
      code: 'stale_plan',
      message: expect.stringMatching(/repository changed[\s\S]*create case cases\/Checkout\/guest-checkout\.yaml/),
    });
    expect(creates(emu)).toEqual([]);
  });

  it('refuses a saved plan made for another project', async () => {
    const root = await fresh();
    const c = client(emu.baseUrl);
    const { plan } = await planFor(root, c);
    await c.close();
    await writeFile(join(root, 'plan.json'), renderPlanJson({ ...plan, project: { id: '00000000-0000-4000-8000-000000000000', name: 'Other', humanIdPrefix: 'OTH' } }));
    await expect(runApply(opts(root, { args: ['plan.json'] }), io())).rejects.toMatchObject({ code: 'stale_plan', message: expect.stringContaining('for project Other (OTH), not Demo (DEMO)') });
    expect(creates(emu)).toEqual([]);
  });

  it('refuses a plan file of another format_version, saying which it reads', async () => {
    const root = await fresh();
    const c = client(emu.baseUrl);
    const json = JSON.parse(renderPlanJson((await planFor(root, c)).plan));
    await c.close();
    await writeFile(join(root, 'plan.json'), JSON.stringify({ ...json, format_version: 1 }));
    await expect(runApply(opts(root, { args: ['plan.json'] }), io())).rejects.toMatchObject({
      code: 'plan_format_version',
      message: expect.stringContaining('this tmsync reads format_version 3'),
    });
    expect(creates(emu)).toEqual([]);
  });

  it('reports an id it cannot write back, exits 1, and the next apply adopts the item instead of creating it again', async () => {
    const root = await fresh();
    const file = join(root, 'cases/Checkout/guest-checkout.yaml');
    if (!(await makeReadOnly(file))) {
      // cannot make a file unwritable here (the executor test covers the failing write-back)
      return;
    }
    try {
      const out = io();
      expect(await runApply(opts(root), out)).toBe(1);
      expect(text(out)).toMatch(/Error: cases\/Checkout\/guest-checkout\.yaml: id not written back .*could not be written/);
      expect(text(out)).toContain('Apply complete: 10 created');
      const c = client(emu.baseUrl);
      const next = (await planFor(root, c)).plan;
      expect(next.operations.map((o) => `${o.kind} ${'writeBack' in o ? o.writeBack?.file : ''}`)).toEqual(['adopt cases/Checkout/guest-checkout.yaml']);
      await c.close();
    } finally {
      await makeWritable(file);
    }
    emu.clearRequestLog();
    const out = io();
    expect(await runApply(opts(root), out)).toBe(0);
    expect(creates(emu)).toEqual([]);
    expect(await readFile(file, 'utf8')).toMatch(/^id: DEMO-\d+$/m);
    const c = client(emu.baseUrl);
    expect((await serviceSnapshot(c)).actual.cases).toHaveLength(6);
    await c.close();
  });

  it('does not write an id into a read-only file (by its mode, even as root): exits 1 naming the file and the id to add by hand, file unchanged', async () => {
    const root = await fresh();
    const file = join(root, 'cases/Checkout/guest-checkout.yaml');
    const before = await readFile(file, 'utf8');
    await chmod(file, 0o444);
    try {
      const out = io();
      expect(await runApply(opts(root), out)).toBe(1);
      expect(text(out)).toMatch(/Error: cases\/Checkout\/guest-checkout\.yaml: id not written back .*is read-only.*add `id: DEMO-\d+` to cases\/Checkout\/guest-checkout\.yaml by hand/);
      expect(await readFile(file, 'utf8')).toBe(before);
      expect((await stat(file)).mode & 0o777).toBe(0o444);
    } finally {
      await chmod(file, 0o644);
    }
  });

  it('removes the temporary files a killed run left, next to files (older versions) and under .tmsync/tmp, and says so', async () => {
    const root = await fresh();
    await writeFile(join(root, 'cases/Checkout/.guest-checkout.yaml.4194305.tmp'), 'title: half written');
    await mkdir(join(root, '.tmsync/tmp'), { recursive: true });
    await writeFile(join(root, '.tmsync/tmp/guest-checkout.yaml.4194305.0a1b2c.tmp'), 'half');
    const out = io();
    expect(await runApply(opts(root), out)).toBe(0);
    expect(text(out)).toMatch(/Removed 2 temporary files a stopped run left/);
    expect(await readdir(join(root, 'cases/Checkout'))).not.toContain('.guest-checkout.yaml.4194305.tmp');
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('lists a failed operation with its file and the service message, keeps the successful ones, and exits 1', async () => {
    const root = await fresh();
    // a folder name the service refuses (over 255 characters) fails its create and the case inside
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, 'cases/Long'), { recursive: true });
    await writeFile(join(root, 'cases/Long/a.yaml'), `title: ${'x'.repeat(1200)}\n`);
    await writeFile(join(root, 'cases/Long/b.yaml'), 'title: A fine case beside it\n');
    const out = io();
    expect(await runApply(opts(root), out)).toBe(1);
    expect(text(out)).toMatch(/Error: cases\/Long\/a\.yaml: create case \(create_case:cases\/Long\/a\.yaml\) failed: POST .* \((invalid_request) 4\d\d\): .*title/);
    expect(text(out)).toContain('Apply complete: 12 created');
    expect(text(out)).toContain('1 operation failed');
  });

  it('prints one JSON document with the plan and the result counts on stdout with --json', async () => {
    const root = await fresh();
    const out = io();
    expect(await runApply(opts(root, { json: true }), out)).toBe(0);
    expect(out.out).toHaveLength(1);
    const doc = JSON.parse(out.out[0]);
    expect(doc.plan.format_version).toBe(PLAN_FORMAT_VERSION);
    expect(doc.result).toMatchObject({ created: 10, updated: 0, moved: 0, deleted: 0, failed: [], skipped: [], interrupted: false });
  });

  it('exits 130 without changing anything when interrupted before the apply starts', async () => {
    const root = await fresh();
    const controller = new AbortController();
    controller.abort();
    const out: CliIo = { ...io(), signal: controller.signal };
    expect(await runApply(opts(root), out)).toBe(130);
    expect(creates(emu)).toEqual([]);
  });

  it('finishes a nested folder that a killed run created at the top level (journal begin, no answer) instead of creating a second one', async () => {
    const root = await fresh();
    const c = client(emu.baseUrl);
    const project = (await serviceSnapshot(c)).actual.project;
    // what a kill between POST /folders and its move leaves: a top-level "Payments" and a journal begin
    await c.call('createFolder', { params: { project_id: project.id }, body: { name: 'Payments' } });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, '.tmsync'), { recursive: true });
    await writeFile(
      join(root, '.tmsync/journal.jsonl'),
      [
        { format_version: 1, type: 'header', project_id: project.id, started_at: '2026-01-01T00:00:00.000Z' },
        { type: 'begin', key: 'create_folder:Checkout/Payments', kind: 'create_folder' },
      ].map((e) => `${JSON.stringify(e)}\n`).join(''),
    );
    emu.clearRequestLog();
    const out = io();
    expect(await runApply(opts(root), out), text(out)).toBe(0);
    const snap = await serviceSnapshot(c);
    const payments = snap.actual.folders.filter((f) => f.name === 'Payments');
    expect(payments).toHaveLength(1);
    expect(payments[0].parentId).toBe(snap.actual.folders.find((f) => f.name === 'Checkout')!.id);
    expect(creates(emu).filter((e) => e.path.endsWith('/folders'))).toHaveLength(2);
    expect((await planFor(root, c)).plan.operations).toEqual([]);
    await c.close();
  });

  it('refuses a journal of another format_version before changing anything', async () => {
    const root = await fresh();
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, '.tmsync'), { recursive: true });
    await writeFile(join(root, '.tmsync/journal.jsonl'), '{"format_version":9,"type":"header","project_id":"x","started_at":"y"}\n');
    await expect(runApply(opts(root), io())).rejects.toMatchObject({ code: 'journal_version', message: expect.stringContaining('format_version 9') });
    expect(creates(emu)).toEqual([]);
  });

  it('deletes an item removed from the repository only with --prune, and converges', async () => {
    const root = await fresh();
    expect(await runApply(opts(root), io())).toBe(0);
    const { rm } = await import('node:fs/promises');
    await rm(join(root, 'cases/Checkout/guest-checkout.yaml'));
    const keep = io();
    expect(await runApply(opts(root), keep)).toBe(0);
    expect(text(keep)).toContain('No changes');
    const c = client(emu.baseUrl);
    expect((await serviceSnapshot(c)).actual.cases).toHaveLength(6);
    const pruned = io();
    expect(await runApply(opts(root, { prune: true }), pruned)).toBe(0);
    expect(text(pruned)).toContain('Apply complete: 0 created, 0 updated, 0 moved, 1 deleted.');
    expect((await serviceSnapshot(c)).actual.cases).toHaveLength(5);
    expect((await planFor(root, c, { prune: true })).plan.operations).toEqual([]);
    await c.close();
  });

  it('stays silent outside the io it is given (the library never prints)', async () => {
    const root = await fresh();
    const writes: string[] = [];
    const orig = { out: process.stdout.write, err: process.stderr.write };
    process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true));
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true));
    try {
      expect(await runApply(opts(root), io())).toBe(0);
    } finally {
      process.stdout.write = orig.out;
      process.stderr.write = orig.err;
    }
    expect(writes).toEqual([]);
  });

  it('with a scope, never takes an unrelated top-level folder of the same name outside the scope for a half-made create', async () => {
    const root = await fresh();
    const cfg = join(root, 'tmsync.yaml');
    await writeFile(cfg, `${await readFile(cfg, 'utf8')}\nscope: [Authentication, Checkout]\n`);
    const c = client(emu.baseUrl);
    const project = (await serviceSnapshot(c)).actual.project;
    // someone else's top-level "Payments", outside tmsync's scope
    const theirs = (await c.call('createFolder', { params: { project_id: project.id }, body: { name: 'Payments' } })).data.folder;
    // a first run is killed right after sending the create of Checkout/Payments (which never arrived)
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(root, '.tmsync'), { recursive: true });
    await writeFile(
      join(root, '.tmsync/journal.jsonl'),
      [
        { format_version: 1, type: 'header', project_id: project.id, started_at: '2026-01-01T00:00:00.000Z' },
        { type: 'begin', key: 'create_folder:Checkout/Payments', kind: 'create_folder', exclude: [theirs.id] },
      ].map((e) => `${JSON.stringify(e)}\n`).join(''),
    );
    const out = io();
    expect(await runApply(opts(root), out), text(out)).toBe(0);
    const all = (await serviceSnapshot(c)).actual.folders;
    expect(all.find((f) => f.id === theirs.id)?.parentId).toBeNull();
    const ours = all.filter((f) => f.name === 'Payments' && f.id !== theirs.id);
    expect(ours).toHaveLength(1);
    expect(ours[0].parentId).toBe(all.find((f) => f.name === 'Checkout')!.id);
    // and the next run's begin entries would carry the out-of-scope folder too
    const prev = await readFile(join(root, '.tmsync/journal.jsonl.prev'), 'utf8');
    expect(prev).toContain(`"exclude":["${theirs.id}"]`);
    await c.close();
  });
});
