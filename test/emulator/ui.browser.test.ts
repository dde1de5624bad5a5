import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureChromium } from './chromium.js';
import { HOSTILE, UI_KEY, seedUiProject, type UiSeed } from './ui-fixture.js';

/**
 * The web UI in a real browser (Debian's Chromium, headless, through playwright-core). Skips with
 * the reason when Chromium is missing and cannot be installed; the HTML tests in ui.test.ts run
 * regardless. The case page's screenshot lands in tmp/artifacts/ui-case.png.
 */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'tmp', 'artifacts');

let emu: RunningEmulator;
let seed: UiSeed;
let browser: BrowserContext | undefined;
let profile: string;
let skipReason: string | undefined;

beforeAll(async () => {
  const have = ensureChromium();
  if (!have.ok) {
    skipReason = have.reason;
    console.warn(`browser tests skipped: ${have.reason}`);
    return;
  }
  emu = await startEmulator({ memory: true, apiKeys: [UI_KEY] });
  seed = seedUiProject(emu.db);
  profile = mkdtempSync(join(tmpdir(), 'tmsync-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await emu?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function signedInPage(): Promise<Page> {
  const page = await browser!.newPage();
  await page.goto(`${emu.appUrl}/ui/`);
  if (await page.locator('input[type=password]').count()) {
    await page.fill('input[type=password]', UI_KEY);
    await page.click('button[type=submit]');
  }
  return page;
}

describe('the web UI in Chromium', () => {
  it('asks for the key in a password field, refuses a wrong one, and shows the projects after the right one', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await browser.newPage();
    const first = await page.goto(`${emu.appUrl}/`);
    expect(first?.status()).toBe(401);
    expect(page.url()).toBe(`${emu.appUrl}/ui/`);
    await expect(page.locator('input[name=key]').getAttribute('type')).resolves.toBe('password');
    expect(await page.locator('main').innerText()).not.toContain('Demo');

    await page.fill('input[name=key]', 'not-the-key');
    await page.click('button[type=submit]');
    expect(await page.locator('[role=alert]').innerText()).toContain('not accepted');
    expect((await browser.cookies()).find((c) => c.name === 'tmsync_ui_key')).toBeUndefined();

    await page.fill('input[name=key]', UI_KEY);
    await page.click('button[type=submit]');
    await page.waitForURL(`${emu.appUrl}/ui/`);
    expect(await page.locator('h1').innerText()).toBe('Projects');
    expect(await page.locator('main table').innerText()).toContain('Demo');
    const cookie = (await browser.cookies()).find((c) => c.name === 'tmsync_ui_key');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    // HttpOnly: the page's scripts cannot read the key
    expect(await page.evaluate<string>('document.cookie')).not.toContain(UI_KEY);
    await page.close();
  });

  it('follows project → folder → case and shows the steps, the group ones marked, and writes a screenshot', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    await page.click('text=Demo');
    await page.waitForURL(/\/ui\/projects\/DEMO$/);
    expect(await page.locator('ul.tree').innerText()).toMatch(/Authentication\s*1\s*\(3 with subfolders\)/);
    await page.click('ul.tree >> text=Authentication');
    expect(await page.locator('h1').innerText()).toBe('Authentication');
    await page.getByRole('link', { name: 'Login', exact: true }).click();
    expect(await page.locator('h1').innerText()).toBe('Login');
    await page.click('text=Valid login');
    await page.waitForURL(new RegExp(`/cases/${seed.plainCase.human_id}$`));
    expect(await page.locator('h1').innerText()).toBe(`${seed.plainCase.human_id}: Valid login`);
    const steps = page.locator('ol.steps > li');
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(0).locator('.step-group-mark').innerText()).toContain(`From step group ${seed.group.human_id}: Open the sign-in page`);
    expect(await steps.nth(2).locator('.step-group-mark').count()).toBe(0);
    expect(await steps.nth(2).innerText()).toContain('Sign in with a valid password');

    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, 'ui-case.png');
    await page.setViewportSize({ width: 900, height: 900 });
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);

    await steps.nth(0).locator('.step-group-mark a').click();
    expect(await page.locator('h1').innerText()).toBe(`${seed.group.human_id}: Open the sign-in page`);
    expect(await page.locator('ol.steps > li').count()).toBe(2);
    await page.close();
  });

  it('shows a hostile title as text and runs none of it', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    await page.goto(`${emu.appUrl}/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`);
    expect(await page.locator('h1').innerText()).toBe(`${seed.hostileCase.human_id}: ${HOSTILE}`);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    await page.close();
  });

  it('fits a case page into a phone-wide window without sideways scrolling', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    await page.setViewportSize({ width: 360, height: 740 });
    for (const path of [`/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`, `/ui/projects/DEMO/runs/${seed.run.human_id}`]) {
      await page.goto(`${emu.appUrl}${path}`);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(360);
    }
    await page.close();
  });

  it('shows every page at 390 px without sideways scrolling, each value of a list card with its visible label', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    // an execution run, so that its list and page have something to show
    const trigger = await fetch(`${emu.appUrl}/api/v1/execution_results`, {
      method: 'POST',
      headers: { authorization: `Bearer ${UI_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ executionId: seed.plan.human_id, buildNo: '7' }),
    });
    expect(trigger.status).toBe(200);
    const executionId = ((await trigger.json()) as { id: number }).id;
    const page = await signedInPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const pages = [
      '/ui/',
      '/ui/projects/DEMO',
      `/ui/projects/DEMO/folders/${seed.authFolder.id}`,
      `/ui/projects/DEMO/folders/${seed.loginFolder.id}`,
      `/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`,
      '/ui/projects/DEMO/step-groups',
      `/ui/projects/DEMO/step-groups/${seed.group.human_id}`,
      '/ui/projects/DEMO/plans',
      `/ui/projects/DEMO/plans/${seed.plan.human_id}`,
      '/ui/projects/DEMO/runs',
      `/ui/projects/DEMO/runs/${seed.run.human_id}`,
      '/ui/runs',
      `/ui/runs/${executionId}`,
    ];
    let cells = 0;
    for (const path of pages) {
      const r = await page.goto(`${emu.appUrl}${path}`);
      expect(r?.status(), path).toBe(200);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(390);
      // the column headings are hidden on a narrow screen: each cell must name its value itself
      expect(await page.locator('table.wide thead').evaluateAll((els) => els.filter((el) => (el as unknown as { offsetParent: unknown }).offsetParent !== null).length), path).toBe(0);
      const labels = await page.locator('table.wide tbody td').evaluateAll((tds) =>
        tds.map((td) => {
          const view = globalThis as unknown as { getComputedStyle(e: unknown, pseudo?: string): { content: string; display: string; visibility: string; color: string } };
          const before = view.getComputedStyle(td, '::before');
          const cell = td as unknown as { getBoundingClientRect(): { width: number; height: number }; textContent: string };
          const box = cell.getBoundingClientRect();
          return { content: before.content, display: before.display, visibility: before.visibility, shown: box.width > 0 && box.height > 0, text: cell.textContent };
        }),
      );
      cells += labels.length;
      for (const l of labels) {
        expect(l.shown, `${path}: ${l.text}`).toBe(true);
        expect(l.display, `${path}: ${l.text}`).not.toBe('none');
        expect(l.visibility, `${path}: ${l.text}`).toBe('visible');
        expect(l.content, `${path}: ${l.text}`).toMatch(/^"[A-Z][a-z]+"$/);
      }
    }
    expect(cells).toBeGreaterThan(30);
    await page.close();
  });

  it("shows a run's results in colour with a count per status", async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    await page.goto(`${emu.appUrl}/ui/projects/DEMO`);
    await page.click('text=Test runs');
    await page.click(`text=${seed.run.human_id}`);
    const totals = page.locator('ul.totals[aria-label="results per status"]');
    expect(await totals.innerText()).toMatch(/Passed: 1\s+Failed: 1\s+No result: 1/);
    const bg = (text: string) => page.locator(`td span.badge:text-is("${text}")`).first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
    expect(await bg('Passed')).toBe('rgb(26, 127, 55)');
    expect(await bg('Failed')).toBe('rgb(207, 34, 46)');
    await page.close();
  });

  it('opens the link `tmsync results push` prints on the page of the run it pushed into', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-ui-link-'));
    try {
      writeFileSync(join(dir, 'junit.xml'), `<testsuite name="s"><testcase classname="c" name="${seed.plainCase.human_id} valid login"/></testsuite>\n`);
      const io = memoryIo({ TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: UI_KEY, TMSYNC_PROJECT: 'DEMO' });
      expect(await main(['node', 'tmsync', 'results', 'push', '--new-run', 'Linked from the terminal', 'junit.xml'], io, dir)).toBe(0);
      const link = /^View run: (\S+)$/.exec(io.err.at(-1) ?? '')?.[1];
      expect(link, io.err.join('\n')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/projects\/DEMO\/runs\/DEMO-R-\d+$/);
      const page = await signedInPage();
      await page.goto(link!);
      expect(await page.locator('h1').innerText()).toMatch(/^DEMO-R-\d+: Linked from the terminal$/);
      expect(await page.locator('ul.totals[aria-label="results per status"]').innerText()).toBe('Passed: 1');
      expect(await page.locator('main table').innerText()).toContain(seed.plainCase.human_id);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps working under its Content-Security-Policy: no violation on any page, and signing out works', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const sent: Record<string, string>[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') void r.allHeaders().then((h) => sent.push(h));
    });
    for (const path of ['/ui/', '/ui/projects/DEMO', `/ui/projects/DEMO/folders/${seed.loginFolder.id}`, `/ui/projects/DEMO/cases/${seed.hostileCase.human_id}`, `/ui/projects/DEMO/runs/${seed.run.human_id}`, '/ui/runs']) {
      const r = await page.goto(`${emu.appUrl}${path}`);
      expect(r?.headers()['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
    // the stylesheet applied (a blocked one would leave the header unstyled)
    const headerBg = await page.locator('header.top').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
    expect(headerBg).toBe('rgb(36, 41, 47)');
    await page.click('text=Sign out');
    await page.waitForURL(`${emu.appUrl}/ui/`);
    expect(await page.locator('input[type=password]').count()).toBe(1);
    expect((await browser.cookies()).find((c) => c.name === 'tmsync_ui_key')).toBeUndefined();
    expect(violations).toEqual([]);
    // the pages send no referrer, so the browser names its own form posts' origin "null": Sec-Fetch-Site tells them apart
    expect(sent.at(-1)?.['sec-fetch-site']).toBe('same-origin');
    await page.close();
  });

  it('refuses a sign-out form posted from another site, and the user stays signed in', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const page = await signedInPage();
    // a page of another site, with a form aimed at the emulator's sign-out
    await page.route('http://evil.test/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: `<form method="post" action="${emu.appUrl}/ui/logout"><button id="go">win a prize</button></form>` }),
    );
    await page.goto('http://evil.test/');
    const [answer] = await Promise.all([page.waitForResponse(`${emu.appUrl}/ui/logout`), page.click('#go')]);
    expect(answer.status()).toBe(403);
    expect(await page.locator('[role=alert]').innerText()).toContain('another site');
    expect((await browser.cookies()).find((c) => c.name === 'tmsync_ui_key')?.value).toBe(UI_KEY);
    await page.goto(`${emu.appUrl}/ui/`);
    expect(await page.locator('h1').innerText()).toBe('Projects');
    await page.close();
  });
});
