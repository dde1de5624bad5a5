import { describe, expect, it } from 'vitest';
import { importsOf, readsProcessEnv, resolveRelative, sourceFiles } from './support/import-graph.js';

/**
 * The structure drawn from the imports (docs/architecture.md, "Layers"): no import cycle, no arrow
 * from a folder to one above it, `plan/` pure all the way down, no environment read in the library.
 * Every arrow counts: `import type` and `import()` too (a type-only import is still a dependency of
 * the design, and an `import()` a dependency that is only loaded later).
 */

/** The floors of src/, from the ground up: a module imports only from its own floor or below. */
const LAYERS = [
  '.', // the files directly in src/ (index.ts aside): errors, model, fields and small helpers
  'api',
  'repository',
  'remote',
  'base',
  'plan',
  'apply',
  'pull',
  'backup',
  'migrate',
  'results',
  'runs',
  'import',
  'export',
  'usecases',
  'emulator',
  'index.ts', // the library's face: re-exports only
  'cli',
] as const;

/** The node: modules a pure module may reach: computation only (no file, process, network or thread). */
const PURE_NODE_MODULES = new Set(['node:assert', 'node:buffer', 'node:crypto', 'node:path', 'node:string_decoder', 'node:url', 'node:util']);
/** Packages that do I/O: never reached from plan/. */
const IO_PACKAGES = new Set(['undici', 'fastify', 'better-sqlite3', 'playwright-core']);


const files = sourceFiles('src');

/** Every arrow between source files of src/, and every package or node: module named. */
function graph(): { arrows: Map<string, Set<string>>; external: Map<string, Set<string>> } {
  const arrows = new Map<string, Set<string>>();
  const external = new Map<string, Set<string>>();
  for (const file of files) {
    arrows.set(file, new Set());
    external.set(file, new Set());
    for (const ref of importsOf(file)) {
      if (ref.specifier.startsWith('.')) arrows.get(file)!.add(resolveRelative(file, ref.specifier));
      else external.get(file)!.add(ref.specifier);
    }
  }
  return { arrows, external };
}
const { arrows, external } = graph();

/** The floor a source file stands on (its folder under src/, `.` for a file directly in src/). */
function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts.length > 2) return parts[1];
  return parts[1] === 'index.ts' ? 'index.ts' : '.';
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of arrows.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || arrows.get(v)?.has(v)) found.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return found;
}

/** Every file reachable from these by imports of any kind, the files themselves included. */
function reachable(from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const to of arrows.get(file) ?? []) visit(to);
  };
  for (const file of from) visit(file);
  return seen;
}

describe('the structure of src/', () => {
  it('reads every source file and the arrows between them', () => {
    // a guard against a scanner that sees nothing: the assertions below would hold vacuously
    expect(files.length).toBeGreaterThan(150);
    expect(arrows.get('src/plan/build-plan.ts')!.size).toBeGreaterThan(5);
    for (const [file, to] of arrows) for (const target of to) expect(files, `${file} imports ${target}, which is not a source file`).toContain(target);
  });

  it('has no import cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('declares a floor for every folder of src/', () => {
    expect(files.map(layerOf).filter((layer) => !(LAYERS as readonly string[]).includes(layer))).toEqual([]);
  });

  it('has no arrow from a floor to one above it', () => {
    const floor = (file: string) => LAYERS.indexOf(layerOf(file) as (typeof LAYERS)[number]);
    const upward: string[] = [];
    for (const [file, to] of arrows) for (const target of to) if (floor(target) > floor(file)) upward.push(`${file} -> ${target}`);
    expect(upward).toEqual([]);
  });

  it('keeps plan/ pure all the way down: nothing it reaches does I/O or reads the environment', () => {
    const fromPlan = reachable(files.filter((f) => f.startsWith('src/plan/')));
    const io: string[] = [];
    for (const file of fromPlan) {
      for (const spec of external.get(file) ?? []) {
        if ((spec.startsWith('node:') && !PURE_NODE_MODULES.has(spec)) || IO_PACKAGES.has(spec)) io.push(`${file} imports ${spec}`);
      }
      if (readsProcessEnv(file)) io.push(`${file} reads process.env`);
    }
    expect(io).toEqual([]);
    // what plan/ depends on is below it, so none of the engine, the client or the repository's files
    expect([...fromPlan].filter((f) => /^src\/(apply|remote|repository|pull|cli)\//.test(f))).toEqual([]);
  });

  it('reads environment variables only in the CLI: the library takes options', () => {
    expect(files.filter((f) => !f.startsWith('src/cli/') && readsProcessEnv(f))).toEqual([]);
    // the scanner sees a read, so the assertion above can fail
    expect(files.filter((f) => readsProcessEnv(f)).length).toBeGreaterThan(0);
  });
});
