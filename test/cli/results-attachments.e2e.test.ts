import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TmsClient } from '../../src/remote/index.js';
import { runCli } from '../support/cli.js';
import { KEY, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { emulatorRefusingOnce, isRunCaseUpdate, storedAttachments } from '../support/emulator.js';
import { TEST_DIALECT } from '../dialect.js';

/**
 * `results push` with the screenshots a JUnit report names, into the emulator (both dialects): the
 * failed cases' files are stored with their run cases, the passed cases' are not; an update refused
 * once (a scripted 5xx through the emulator's fault options) is sent again with exactly its own
 * files; the run's page in the web UI shows each image, behind the key.
 */

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let caseIds: string[];
let cwd: string;
let refuseNextUpdate: () => void;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A 1×1 PNG of one colour: each case's screenshot is told apart by its bytes. */
function png(red: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const pixels = deflateSync(Buffer.from([0, red, 0x40, 0x80]));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

const FAILED = [1, 2, 3, 4];
const PASSED = [5, 6];

/** DEMO-1…4 fail and name their screenshot; DEMO-5, 6 pass and name one too; DEMO-7 fails naming a file that is not there. */
function report(): string {
  const testcase = (n: number, failed: boolean, file: string) => `
    <testcase name="DEMO-${n} checkout step ${n}" classname="checkout.spec.ts">
      ${failed ? '<failure message="expected the total to be 12">stack</failure>' : ''}
      <system-out>
[[ATTACHMENT|${file}]]
</system-out>
    </testcase>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="playwright">
  <testsuite name="checkout.spec.ts">${FAILED.map((n) => testcase(n, true, `shots/case-${n}.png`)).join('')}${PASSED.map((n) => testcase(n, false, `shots/case-${n}.png`)).join('')}${testcase(7, true, 'shots/gone.png')}
  </testsuite>
</testsuites>`;
}

async function tmsync(args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' } });
}

async function createRun(title: string): Promise<{ id: string; human_id: string }> {
  const res = await setup.call('createTestRun', {
    params: { project_id: projectId },
    body: { title, selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds }] },
  });
  return res.data.test_run as { id: string; human_id: string };
}

beforeAll(async () => {
  ({ emu, refuseNextUpdate } = await emulatorRefusingOnce(KEY));
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 7);
  projectId = seeded.project.id;
  caseIds = seeded.caseIds;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-attach-e2e-'));
  await mkdir(join(cwd, 'reports', 'shots'), { recursive: true });
  await writeFile(join(cwd, 'reports', 'junit.xml'), report());
  for (const n of [...FAILED, ...PASSED]) await writeFile(join(cwd, 'reports', 'shots', `case-${n}.png`), png(n * 30));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

const stored = (runId: string) => storedAttachments(emu, caseIds, runId);

describe('results push with attachments', () => {
  it("stores each failed case's screenshot and none of the passed cases', an update refused once re-sending exactly its own files, and lists the missing file", async () => {
    const run = await createRun('Attachments');
    emu.clearRequestLog();
    refuseNextUpdate();
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, '--batch-size', '2', '--json', 'reports/junit.xml']);
    expect(r.code).toBe(0);

    const files = stored(run.id);
    expect([...files.keys()].sort()).toEqual(FAILED);
    for (const n of FAILED) expect(files.get(n)).toEqual([{ name: `case-${n}.png`, bytes: png(n * 30) }]);

    // seven rows in four updates; the first was refused (an injected 500 or 503) and sent again
    const updates = emu.requestLog().filter((e) => isRunCaseUpdate(e.method, e.path));
    // (live: the first update without files goes as JSON, is refused 415 and sent again as multipart, as before)
    const statuses = updates.map((e) => (e.fault ? `refused ${e.status >= 500 ? '5xx' : e.status}` : e.status));
    expect(statuses).toEqual(TEST_DIALECT === 'live' ? ['refused 5xx', 200, 200, 415, 200, 200] : ['refused 5xx', 200, 200, 200, 200]);

    const json = JSON.parse(r.out) as {
      attachments: { scope: string; planned: number; sent: number; missing: { case_id: string; source: string; reason: string }[]; not_selected: number };
      rows: { human_id: string; attachments?: { file_name: string }[] }[];
    };
    expect(json.attachments).toMatchObject({ scope: 'failed', planned: 4, sent: 4, not_selected: 2 });
    expect(json.attachments.missing).toEqual([{ case_id: caseIds[6], source: 'shots/gone.png', reason: 'no such file' }]);
    expect(json.rows.find((row) => row.human_id === 'DEMO-1')?.attachments).toEqual([expect.objectContaining({ file_name: 'case-1.png' })]);
    expect(json.rows.find((row) => row.human_id === 'DEMO-5')?.attachments).toBeUndefined();
    expect(r.err).toContain('Attached 4 of 4 files');
    expect(r.err).toContain('DEMO-7: shots/gone.png: no such file');
  });

  it('shows each image on the run\'s page in the web UI, behind the key', async () => {
    const run = await createRun('Attachments UI');
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, '--attachments', 'all', 'reports/junit.xml']);
    expect(r.code).toBe(0);
    const origin = emu.appUrl;
    const page = `${origin}/ui/projects/DEMO/runs/${run.human_id}`;
    const cookie = { cookie: `tmsync_ui_key=${encodeURIComponent(KEY)}` };
    const html = await (await fetch(page, { headers: cookie })).text();
    const sources = [...html.matchAll(/<img class="attachment" src="([^"]+)" alt="([^"]+)"/g)].map((m) => ({ src: m[1], alt: m[2] }));
    expect(sources.map((s) => s.alt).sort()).toEqual([...FAILED, ...PASSED].map((n) => `case-${n}.png`).sort());
    const first = sources.find((s) => s.alt === 'case-1.png')!;
    const image = await fetch(`${origin}${first.src}`, { headers: cookie });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(png(30));
    // without the key: neither the page nor the file
    expect((await fetch(page)).status).toBe(401);
    expect((await fetch(`${origin}${first.src}`)).status).toBe(401);
  });

  it('closes a request early before its files pass --attachment-batch-max-size, and lists files of a type not sent as skipped', async () => {
    const run = await createRun('Attachments split');
    emu.clearRequestLog();
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, '--attachment-batch-max-size', '100', '--json', 'reports/junit.xml']);
    expect(r.code).toBe(0);
    // each screenshot is under 100 bytes, two are over: one request per failed case with a file, then the rest
    const updates = emu.requestLog().filter((e) => isRunCaseUpdate(e.method, e.path) && e.status === 200);
    expect(updates).toHaveLength(4);
    expect([...stored(run.id).keys()].sort()).toEqual(FAILED);

    const typed = await tmsync(['results', 'push', '--test-run', run.human_id, '--attachment-types', 'jpg,webm', '--dry-run', 'reports/junit.xml']);
    expect(typed.code).toBe(0);
    expect(typed.err).toContain('4 files were skipped:');
    expect(typed.err).toMatch(/DEMO-1: shots\/case-1\.png \(\d+ B\): not a type sent \(--attachment-types\)/);
  });

  it('--dry-run lists the files each row would send, and sends nothing', async () => {
    const run = await createRun('Attachments dry run');
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, '--dry-run', 'reports/junit.xml']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/DEMO-1 Checkout case 1 .*\n\s+\+ case-1\.png \(\d+ B\)/);
    expect(r.err).toContain('Would attach 4 files');
    expect(stored(run.id).size).toBe(0);
  });
});
