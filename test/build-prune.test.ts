import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the build', () => {
  it('removes outputs in dist/ whose source module no longer exists, and keeps the others', async () => {
    const staleDir = join(root, 'dist', 'zz-renamed-away');
    await mkdir(staleDir, { recursive: true });
    for (const f of ['gone.js', 'gone.js.map', 'gone.d.ts']) await writeFile(join(staleDir, f), '// stale\n');
    await writeFile(join(root, 'dist', 'zz-gone-too.js'), '// stale\n');
    execFileSync(process.execPath, [join(root, 'scripts', 'prune-dist.mjs')]);
    expect(existsSync(staleDir)).toBe(false);
    expect(existsSync(join(root, 'dist', 'zz-gone-too.js'))).toBe(false);
    expect(existsSync(join(root, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(root, 'dist', 'repository', 'loader.js'))).toBe(true);
  });
});
