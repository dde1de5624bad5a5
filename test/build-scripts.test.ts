import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

describe('the checkout for a developer', () => {
  it('has a quick subset of the tests, which leaves out the end-to-end, browser and demo tests', async () => {
    const scripts = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts['test:unit']).toContain('--config vitest.unit.config.ts');
    const { NOT_UNIT } = await import('../vitest.unit.config.js');
    for (const left of ['test/**/*.e2e.test.ts', 'test/**/*.browser.test.ts', 'test/demo.test.ts']) expect(NOT_UNIT).toContain(left);
    expect(await readFile(join(ROOT, 'README.md'), 'utf8')).toContain('npm run test:unit');
  });

  it('ignores the tarball `npm pack` writes into it', () => {
    const r = spawnSync('git', ['check-ignore', '--no-index', 'tmsync-0.1.0.tgz'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('tmsync-0.1.0.tgz');
  });
});
