#!/usr/bin/env node
// npm's `prepare`: builds dist/ when tmsync is installed from a git URL or a checkout (`npm ci`,
// `npm install`) and before `npm pack`/`npm publish`, so every way of getting tmsync has dist/.
// The build is incremental (dist/.tsbuildinfo), so `npm ci && npm test` compiles once and the
// test script's own build is a quick no-op. Without TypeScript (devDependencies omitted) there is
// nothing to build with: a tarball or registry package already contains dist/, so say so and go on.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
    process.stderr.write('tmsync prepare: TypeScript is not installed and dist/ is missing; run `npm install` with devDependencies, then `npm run build`\n');
    process.exit(1);
  }
  process.exit(0);
}
const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
  cwd: new URL('..', import.meta.url),
});
if (res.status === 0) {
  const prune = spawnSync(process.execPath, [new URL('./prune-dist.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  process.exit(prune.status ?? 1);
}
process.exit(res.status ?? 1);
