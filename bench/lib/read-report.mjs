// Shared by the report benchmarks (not a benchmark itself: scripts/bench.mjs runs only bench/*.mjs).
// `results push` before any request: one report read and mapped to cases, in a fresh child so that
// its peak RSS is the reader's alone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { loadReports } = await import('../../dist/results/load-reports.js');
  const { countTestcases } = await import('../../dist/results/record.js');
  const { mapResults } = await import('../../dist/results/map-results.js');
  const t0 = performance.now();
  let read;
  try {
    read = await loadReports([process.argv[2]], '/');
  } catch (err) {
    // a report too large to read: what it says is a figure too
    process.stdout.write(JSON.stringify({ error: `${err.code ?? 'error'}: ${err.message}`, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
    process.exit(0);
  }
  const t1 = performance.now();
  const mapped = mapResults(read.records, { prefix: 'SHOP' });
  const t2 = performance.now();
  process.stdout.write(
    JSON.stringify({
      format: read.formats[0],
      readSeconds: (t1 - t0) / 1000,
      mapSeconds: (t2 - t1) / 1000,
      testcases: countTestcases(read.records),
      cases: mapped.cases.length,
      failed: mapped.cases.filter((c) => c.outcome === 'failed').length,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
  process.exit(0);
}

/**
 * Reads and maps `file` in a fresh child (the project's human id prefix `SHOP`).
 * @returns {{ format?: string, readSeconds?: number, mapSeconds?: number, testcases?: number, cases?: number, failed?: number, maxRssMb: number, error?: string }}
 */
export function measureReport(file) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), file], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`bench child failed for ${file}: ${child.stderr}`);
  return JSON.parse(child.stdout);
}
