#!/usr/bin/env node
// Makes docs/images/ui-case.png, the README's picture of the emulator's web UI, from the demo's own
// data, so that it shows what `npm run demo` gives: starts the emulator with `--seed demo`, applies
// a scratch copy of examples/ to it (as scripts/demo.mjs does), then opens the page of the case
// "Log in with valid credentials" in Debian's Chromium (/usr/bin/chromium, driven by
// playwright-core, the browser tests' setup) at a desktop width and saves a full-page screenshot.
//
// Run by hand after a change to the UI or to examples/ (not part of `npm test`):
//   npm run build && node scripts/screenshot.mjs [output.png]
// Look at the image before committing it, and keep the README's alt text in step with it.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDemo } from './lib/serve-demo.mjs';
import { chromium } from 'playwright-core';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');
const cli = join(here, 'bin', 'tmsync.js');
const out = resolve(process.argv[2] ?? join(here, 'docs', 'images', 'ui-case.png'));
const CASE_TITLE = 'Log in with valid credentials';
const CASE_FILE = join('cases', 'Authentication', 'valid-login.yaml');
// the browser tests' Chromium and flags (test/emulator/chromium.ts)
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1100, height: 760 };
const key = `shot-${Math.random().toString(36).slice(2)}`;

function tmsync(args, env, cwd) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('close', (code) => resolvePromise({ code, text }));
  });
}

const { server, baseUrl } = await serveDemo(cli, key);
const origin = new URL(baseUrl).origin;

const work = mkdtempSync(join(tmpdir(), 'tmsync-screenshot-'));
let browser;
try {
  cpSync(join(here, 'examples'), work, { recursive: true, filter: (src) => !src.includes(join('examples', 'ci')) });
  const cfgFile = join(work, 'tmsync.yaml');
  writeFileSync(cfgFile, readFileSync(cfgFile, 'utf8').replace(/^base_url:.*$/m, `base_url: ${baseUrl}`));
  const applied = await tmsync(['apply', '--auto-approve'], { ...process.env, TMSYNC_API_KEY: key, NO_COLOR: '1' }, work);
  if (applied.code !== 0) throw new Error(`apply failed with ${applied.code}:\n${applied.text}`);

  // apply wrote the case's human id back into its file
  const caseText = readFileSync(join(work, CASE_FILE), 'utf8');
  if (!caseText.includes(`title: ${CASE_TITLE}`)) throw new Error(`${CASE_FILE} is no longer "${CASE_TITLE}": update this script`);
  const humanId = /^id: (\S+)$/m.exec(caseText)?.[1];
  if (!humanId) throw new Error(`apply wrote no id into ${CASE_FILE}:\n${caseText}`);

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.goto(`${origin}/ui/`);
  await page.fill('input[name=key]', key);
  await Promise.all([page.waitForURL(`${origin}/ui/`), page.click('button[type=submit]')]);
  const answer = await page.goto(`${origin}/ui/projects/DEMO/cases/${encodeURIComponent(humanId)}`);
  if (answer?.status() !== 200) throw new Error(`the case page answered ${answer?.status()}`);
  const heading = await page.locator('h1').innerText();
  if (heading !== `${humanId}: ${CASE_TITLE}`) throw new Error(`unexpected page heading: ${heading}`);
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out} (${heading})`);
} catch (err) {
  console.error(`screenshot failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
