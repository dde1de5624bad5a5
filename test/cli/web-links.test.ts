import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { Dialect } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * The links tmsync prints into the service's web UI. The emulator's document dialect answers with
 * `web_url`; its live dialect, like the live service, answers with no link at all, which is the
 * case of a service that gives none.
 */
const KEY = 'web-links-key';
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tmsync(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: KEY, ...env } });
}

/** An emulator of the dialect and a starter repository (`tmsync init`) aimed at it: apply creates three items. */
async function setUp(dialect: Dialect) {
  const emu = await seededEmulator(KEY, { dialect });
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-web-links-'));
  dirs.push(dir);
  expect((await tmsync(dir, { TMSYNC_BASE_URL: emu.baseUrl }, 'init', '--example')).code).toBe(0);
  return { emu, dir };
}

const JUNIT = '<testsuite name="s"><testcase classname="c" name="DEMO-1 checks out"/></testsuite>\n';

describe('the apply summary', () => {
  it("ends with `View project: <link>` to the project's page in the web UI, which shows the project; in --json as project_url and in the job summary", async () => {
    const { emu, dir } = await setUp('document');
    try {
      const summaryFile = join(dir, 'summary.md');
      const applied = await tmsync(dir, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile }, 'apply', '--auto-approve', '--json');
      expect(applied.code).toBe(0);
      const page = `${emu.appUrl}/ui/projects/DEMO`;
      expect(applied.errLines.at(-1)).toBe(`View project: ${page}`);
      expect(applied.errLines.at(-2)).toMatch(/^Apply complete: 3 created/);
      expect(JSON.parse(applied.out).project_url).toBe(page);
      expect(await readFile(summaryFile, 'utf8')).toContain(`**Apply complete: 3 created, 0 updated, 0 moved, 0 deleted.**\n\nView project: <${page}>`);
      const res = await fetch(page, { headers: { cookie: `tmsync_ui_key=${KEY}` } });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('<h1>Demo (DEMO)</h1>');
      // the items apply just created are there to look at
      expect(html).toMatch(/Folders <span class="count"[^>]*>1<\/span>/);
    } finally {
      await emu.close();
    }
  });
});

describe('a service whose answers carry no link to its web UI', () => {
  it('gets no link line and no empty line from apply or results push, and no link in their --json', async () => {
    const { emu, dir } = await setUp('live');
    try {
      const applied = await tmsync(dir, {}, 'apply', '--auto-approve', '--json');
      expect(applied.code).toBe(0);
      expect(applied.errLines.at(-1)).toMatch(/^Apply complete: 3 created/);
      expect(JSON.parse(applied.out)).not.toHaveProperty('project_url');

      await writeFile(join(dir, 'junit.xml'), JUNIT);
      const pushed = await tmsync(dir, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') }, 'results', 'push', '--new-run', 'No link', 'junit.xml', '--json');
      expect(pushed.code).toBe(0);
      expect(pushed.errLines.at(-1)).toMatch(/^Pushed 1 of 1 result from 1 testcase into DEMO-R-\d+ "No link": 1 Passed\.$/);
      expect(JSON.parse(pushed.out).run).not.toHaveProperty('url');

      const lines = [...applied.errLines, ...pushed.errLines];
      expect(lines.filter((l) => /View (run|project)|https?:\/\//.test(l))).toEqual([]);
      expect(lines.filter((l) => l.trim() === '')).toEqual([]);
      expect(await readFile(join(dir, 'summary.md'), 'utf8')).not.toContain('View ');
    } finally {
      await emu.close();
    }
  });
});
