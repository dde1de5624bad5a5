import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Runs the built CLI with a resolve hook that makes the named packages impossible to find. */
function runWithout(packages: string[], args: string[]) {
  const hook = `
    export async function resolve(specifier, context, next) {
      if (${JSON.stringify(packages)}.includes(specifier)) {
        const e = new Error("Cannot find package '" + specifier + "'"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e;
      }
      return next(specifier, context);
    }`;
  const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  return spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, join(root, 'bin', 'tmsync.js'), ...args], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('tmsync serve without its optional dependencies', () => {
  it('exits 1 with an error that names the missing package and how to install it, when better-sqlite3 is missing', () => {
    const r = runWithout(['better-sqlite3'], ['serve', '--port', '0', '--memory']);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('listening');
    expect(r.stderr).toContain('the emulator cannot start');
    expect(r.stderr).toContain('better-sqlite3');
    expect(r.stderr).toMatch(/Hint: .*npm install better-sqlite3 fastify/);
  });

  it('exits 1 the same way when fastify is missing', () => {
    const r = runWithout(['fastify'], ['serve', '--port', '0', '--memory']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('fastify');
    expect(r.stderr).toMatch(/Hint: .*npm install better-sqlite3 fastify/);
  });

  it('still runs commands that do not need the emulator', () => {
    const r = runWithout(['better-sqlite3', 'fastify'], ['validate', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('validate');
  });
});
