#!/usr/bin/env node
// `tmsync import` of a synthetic TestRail XML export (issue 26 item 8: 50,000 cases, about 60 MB,
// in under 30 s with peak memory under 400 MB): the CLI's whole import (decode, read, scan, render
// and write every file durably, the report) into an empty repository, then a re-import of the same
// export into the repository it wrote (which writes nothing), each in a fresh child so its peak
// RSS is its own. Three runs of each; medians. Build first (npm run bench does).
//
//   node bench/import.mjs            (BENCH_IMPORT_CASES=10000 for a quicker run)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTestrailExport } from '../scripts/lib/testrail-export.mjs';

const CASES = Number(process.env.BENCH_IMPORT_CASES ?? 50_000);
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'tmsync-bench-import-'));
try {
  const file = join(dir, 'testrail-export.xml');
  const { bytes } = writeTestrailExport(file, { cases: CASES });
  // the CLI as a user runs it (its memory governor included), in a fresh process whose peak RSS
  // a preloaded module writes down as it exits
  const rssFile = join(dir, 'max-rss');
  const preload = `data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>writeFileSync(${JSON.stringify(rssFile)},String(process.resourceUsage().maxRSS)))`;
  const bin = fileURLToPath(new URL('../bin/tmsync.js', import.meta.url));
  const run = (root) => {
    const t0 = performance.now();
    const child = spawnSync(process.execPath, ['--import', preload, bin, '--json', 'import', 'testrail-xml', file, '--dir', root, '--no-service'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const seconds = (performance.now() - t0) / 1000;
    if (child.status !== 0) throw new Error(`tmsync import failed: ${child.stderr}`);
    const doc = JSON.parse(child.stdout);
    return { seconds, created: doc.counts.created, unchanged: doc.counts.unchanged, maxRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
  };
  // on disk before the first run: the export is a file the user already has
  spawnSync('sync');
  const first = [];
  const again = [];
  // every repository is kept until the end: removing 50,000 files leaves the file system work
  // that the next run's flush would pay for
  for (let i = 0; i < RUNS; i++) {
    const root = join(dir, `repo-${i}`);
    const a = run(root);
    if (a.created < CASES) throw new Error(`created ${a.created} files, expected at least ${CASES}`);
    first.push(a);
    const b = run(root);
    if (b.created !== 0) throw new Error(`the re-import created ${b.created} files`);
    again.push(b);
  }
  const render = await compareWriters(join(dir, 'repo-0'));
  const fmt = (n) => n.toLocaleString('en-US');
  const s = (rs) => median(rs.map((r) => r.seconds));
  const m = (rs) => Math.round(median(rs.map((r) => r.maxRssMb)));
  const each = (rs) => rs.map((r) => `${r.seconds.toFixed(1)} s`).join(', ');
  process.stdout.write(
    `import: ${fmt(CASES)} TestRail cases (${(bytes / 1e6).toFixed(1)} MB of XML), medians of ${RUNS} runs (load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)\n` +
      `  into an empty repository:     ${s(first).toFixed(1)} s, peak RSS ${m(first)} MB (${fmt(first[0].created)} files)   bound: 30 s, 400 MB   runs: ${each(first)}\n` +
      `  the same export again:        ${s(again).toFixed(1)} s, peak RSS ${m(again)} MB (${fmt(again[0].unchanged)} unchanged, nothing written)   runs: ${each(again)}\n` +
      `  re-import / first import:     ${(s(again) / s(first)).toFixed(2)}\n` +
      `  rendering its ${fmt(render.files)} YAML files, medians of ${RUNS} rounds: the yaml library ${render.library.toFixed(2)} s, the direct writer ${render.direct.toFixed(2)} s (${(render.library / render.direct).toFixed(1)}x), ${fmt(render.fellBack)} left to the library\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The two writers of a YAML file side by side over the files an import wrote (each parsed back
 * to the object it was rendered from): the `yaml` library, and the direct writer the repository
 * uses for plain shapes (same text: checked here too). Rounds alternate which goes first.
 */
async function compareWriters(root) {
  const { parse } = await import('yaml');
  const { emitPlainYaml } = await import('../dist/repository/yaml-emit.js');
  const { renderYamlWithLibrary } = await import('../dist/repository/yaml-render.js');
  const docs = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory() && !e.name.startsWith('.')) walk(join(d, e.name));
      else if (e.name.endsWith('.yaml') && e.name !== 'tmsync.yaml') docs.push(parse(readFileSync(join(d, e.name), 'utf8')));
    }
  };
  walk(root);
  const withLibrary = () => docs.map((o) => renderYamlWithLibrary(o, {}, ['labels']));
  const direct = () => docs.map((o) => emitPlainYaml(o, ['labels']));
  const timed = (fn) => {
    const t0 = performance.now();
    const out = fn();
    return { seconds: (performance.now() - t0) / 1000, out };
  };
  const library = [];
  const fast = [];
  let fellBack = 0;
  for (let i = 0; i < RUNS; i++) {
    const early = i % 2 === 0 ? timed(withLibrary) : undefined;
    const b = timed(direct);
    const a = early ?? timed(withLibrary);
    library.push(a.seconds);
    fast.push(b.seconds);
    fellBack = 0;
    b.out.forEach((text, k) => {
      if (text === undefined) fellBack++;
      else if (text !== a.out[k]) throw new Error(`the direct writer wrote file ${k} differently from the yaml library`);
    });
  }
  return { files: docs.length, library: median(library), direct: median(fast), fellBack };
}
