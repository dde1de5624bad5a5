import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium: the browser tests drive it through playwright-core (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every test browser starts with: headless, no sandbox (root in CI), nothing from the network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let outcome: { ok: true } | { ok: false; reason: string } | undefined;

/**
 * Makes sure Chromium is there: when it is missing and we run as root with CI set (or
 * TMSYNC_INSTALL_CHROMIUM=1), installs Debian's package with apt-get. Answers why not, when it
 * cannot be had, so the browser tests can skip with that message.
 */
export function ensureChromium(): { ok: true } | { ok: false; reason: string } {
  if (outcome) return outcome;
  if (existsSync(CHROMIUM)) return (outcome = { ok: true });
  const root = process.getuid?.() === 0;
  const allowed = Boolean(process.env.CI) || process.env.TMSYNC_INSTALL_CHROMIUM === '1';
  if (!root || !allowed) {
    return (outcome = {
      ok: false,
      reason: `${CHROMIUM} is missing; install it with "apt-get install chromium" (the tests do so themselves as root with CI=1 or TMSYNC_INSTALL_CHROMIUM=1)`,
    });
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const opts = { env, encoding: 'utf8' as const, timeout: 15 * 60_000 };
  const update = spawnSync('apt-get', ['update'], opts);
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', 'chromium'], opts) : update;
  if (install.status !== 0 || !existsSync(CHROMIUM)) {
    const why = (install.stderr || install.error?.message || '').trim().split('\n').slice(-3).join(' ');
    return (outcome = { ok: false, reason: `Chromium could not be installed with apt-get (${why || `exit ${install.status}`})` });
  }
  return (outcome = { ok: true });
}
