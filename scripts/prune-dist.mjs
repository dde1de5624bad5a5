#!/usr/bin/env node
// Removes what the incremental build left in dist/ for sources that no longer exist (a module
// renamed or deleted in src/): tsc never deletes old outputs, and `npm pack` would ship them.
// Run after every build (`npm run build`, `prepare`).
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const src = join(root, 'src');
const OUTPUT = /\.(?:js|js\.map|d\.ts|d\.ts\.map)$/;

/** The source file a dist/ output was compiled from (`a/b.js.map` → `src/a/b.ts`). */
function sourceOf(rel) {
  return join(src, rel.replace(/\.(?:js\.map|d\.ts\.map|js|d\.ts)$/, '.ts'));
}

/** Prunes `dir`; answers whether it is empty afterwards. */
function prune(dir) {
  let left = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (prune(path)) rmdirSync(path);
      else left++;
    } else if (OUTPUT.test(entry.name) && !existsSync(sourceOf(relative(dist, path)))) {
      rmSync(path);
    } else {
      left++;
    }
  }
  return left === 0;
}

if (existsSync(dist) && existsSync(src)) prune(dist);
