#!/usr/bin/env node
// The demo: start the embedded emulator on a free port with the demo project, copy examples/ to a
// scratch directory, then run `tmsync plan`, `tmsync apply --auto-approve` and `tmsync plan` again
// through the real CLI. Nothing in the checkout is modified; the working copy, with the ids apply
// wrote back, is kept and its path printed. The commands write straight to this terminal, so their
// colours and apply's progress bar show as a user would see them. It ends by printing the address
// of the emulator's web UI; in a terminal the emulator then stays up until Ctrl-C so it can be
// looked at.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDemo } from './lib/serve-demo.mjs';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');
const cli = join(here, 'bin', 'tmsync.js');
const key = `demo-${Math.random().toString(36).slice(2)}`;

function run(args, env, opts = {}) {
  return new Promise((resolvePromise) => {
    // the demo's own stdout and stderr: on a terminal tmsync colours its output and draws its bar
    const child = spawn(process.execPath, [cli, ...args], { cwd: opts.cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => resolvePromise({ code }));
  });
}

// 1. serve: the emulator as a child process, exactly as a user would start it
const { server, baseUrl } = await serveDemo(cli, key);
console.log(`\n$ tmsync serve --port 0 --memory --seed demo\n  → ${baseUrl}\n`);

const work = mkdtempSync(join(tmpdir(), 'tmsync-demo-'));
let exitCode = 0;
try {
  cpSync(join(here, 'examples'), work, { recursive: true, filter: (src) => !src.includes(`${join('examples', 'ci')}`) });
  const cfgFile = join(work, 'tmsync.yaml');
  writeFileSync(cfgFile, readFileSync(cfgFile, 'utf8').replace(/^base_url:.*$/m, `base_url: ${baseUrl}`));
  const env = { ...process.env, TMSYNC_API_KEY: key };
  console.log(`Working copy of examples/: ${work}\n`);

  console.log('$ tmsync plan');
  const first = await run(['plan', '--detailed-exitcode'], env, { cwd: work });
  if (first.code !== 2) throw new Error(`expected pending changes (exit 2), got ${first.code}`);

  console.log('\n$ tmsync apply --auto-approve');
  const applied = await run(['apply', '--auto-approve'], env, { cwd: work });
  if (applied.code !== 0) throw new Error(`apply failed with ${applied.code}`);

  console.log('\n$ tmsync plan   # again: nothing left to do');
  const second = await run(['plan', '--detailed-exitcode'], env, { cwd: work });
  if (second.code !== 0) throw new Error(`expected no changes (exit 0), got ${second.code}`);

  console.log('\nIds were written back, e.g.:');
  const sample = join(work, 'cases', 'Authentication', 'valid-login.yaml');
  console.log(readFileSync(sample, 'utf8').split('\n').slice(0, 3).join('\n'));
  console.log('\nDemo complete: plan → apply → plan shows no changes.');
} catch (err) {
  console.error(`\nDemo failed: ${err.message}`);
  exitCode = 1;
}
console.log(`\nThe working copy, with the ids apply wrote back, is kept in ${work}`);
console.log(`(remove it with: rm -r ${JSON.stringify(work)})`);
const uiUrl = `${new URL(baseUrl).origin}/`;
console.log(`\nThe emulator's web UI: ${uiUrl}  (sign in with the demo's throwaway key ${key})`);
if (exitCode === 0 && process.stdin.isTTY && process.stdout.isTTY) {
  console.log('The emulator keeps running so you can look; stop it with Ctrl-C.');
  await new Promise((resolvePromise) => {
    process.once('SIGINT', resolvePromise);
    process.once('SIGTERM', resolvePromise);
    server.once('exit', resolvePromise);
  });
}
server.kill('SIGTERM');
process.exitCode = exitCode;
