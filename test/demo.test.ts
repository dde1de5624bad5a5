import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

describe('the demo (`npm run demo` after its build)', () => {
  it('keeps the working copy it prints, leaves colour to the terminal, and keeps the emulator\'s own notes out of its story', async () => {
    // FORCE_COLOR stands in for a terminal: the demo must not turn colour off itself
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1' };
    delete env.NO_COLOR;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], { cwd: ROOT, env, maxBuffer: 16 << 20 });
    const work = /is kept in (\S+)/.exec(stdout)?.[1];
    expect(work, stdout).toBeDefined();
    try {
      expect(await readFile(join(work!, 'cases', 'Authentication', 'valid-login.yaml'), 'utf8')).toMatch(/^id: DEMO-\d+$/m);
      expect(stdout).toContain('Demo complete: plan → apply → plan shows no changes.');
      // tmsync's output carries colour: nothing forced NO_COLOR
      expect(`${stdout}${stderr}`).toContain('\u001b[');
      // the emulator's "Stop with Ctrl-C" note is not printed: the demo says itself what to do
      expect(`${stdout}${stderr}`).not.toContain('Stop with Ctrl-C');
      expect(stdout.indexOf('$ tmsync serve')).toBeLessThan(stdout.indexOf('$ tmsync plan'));
    } finally {
      if (work) await rm(work, { recursive: true, force: true });
    }
  });
});
