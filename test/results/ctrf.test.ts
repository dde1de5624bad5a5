import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFixture, recordNamed, rejectionOf } from '../support/report-files.js';
import { parseCtrf } from '../../src/results/ctrf.js';
import { detectFormat, loadReports } from '../../src/results/load-reports.js';
import { mapResults } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/ctrf/', import.meta.url));

const load = (file: string): Promise<TestRecord[]> => loadFixture(FIXTURES, file);

const byName = recordNamed;

const rejection = rejectionOf;

describe('CTRF JSON', () => {
  it('is told by its shape, with or without reportFormat first', async () => {
    for (const file of ['ctrf-report.json', 'bom-crlf.json', 'utf16.json', 'windows-1252.json', 'truncated.json']) {
      expect(detectFormat(await readFile(`${FIXTURES}${file}`), file), file).toBe('ctrf');
    }
  });

  it('maps every status to an outcome: pending is skipped, other is an error', async () => {
    const records = await load('ctrf-report.json');
    expect(records.map((r) => [r.name, r.outcome])).toEqual([
      ['DEMO-1 adds an item', 'passed'],
      ['removes an item', 'failed'],
      ['DEMO-3 checks out', 'passed'],
      ['DEMO-4 pays later', 'skipped'],
      ['DEMO-5 redeems a gift card', 'skipped'],
      ['DEMO-6 confirms by e-mail', 'error'],
      ['search finds [dune]', 'failed'],
      ['search finds [ubik]', 'passed'],
    ]);
    expect(byName(records, 'DEMO-6 confirms by e-mail')).toMatchObject({ message: 'Exceeded timeout of 5000 ms for a test.', properties: { rawStatus: 'timedOut' } });
    expect(parseCtrf('{"results":{"tests":[{"name":"x","status":"weird"}]}}', 'c.json')[0]).toMatchObject({ outcome: 'error', message: 'CTRF status "weird"' });
  });

  it('reads suites (array or string), file, duration, message, tags and the flaky retry as passed', async () => {
    const records = await load('ctrf-report.json');
    expect(byName(records, 'removes an item')).toMatchObject({
      classname: 'cart.test.ts > Cart',
      suites: ['cart.test.ts', 'Cart'],
      file: 'src/cart.test.ts',
      durationMs: 99,
      message: 'expect(received).toBe(expected) // Object.is equality',
      tags: ['DEMO-2', 'regression'],
    });
    expect(byName(records, 'DEMO-3 checks out')).toMatchObject({ outcome: 'passed', suites: ['checkout.test.ts > Checkout'], properties: { retries: '2', flaky: 'true' } });
  });

  it('keeps data-driven rows apart with their parameters, and maps tags that are human ids', async () => {
    const records = await load('ctrf-report.json');
    expect(byName(records, 'search finds [dune]').properties).toEqual({ browser: 'chromium 131', 'parameter.query': 'dune', 'parameter.expected': '1' });
    const outcome = Object.fromEntries(mapResults(records, { prefix: 'DEMO' }).cases.map((c) => [c.ref, c.outcome]));
    expect(outcome).toMatchObject({ 'DEMO-2': 'failed', 'DEMO-7': 'failed', 'DEMO-8': 'passed' });
  });

  it('reads attachments by path and a base64 screenshot as a body', async () => {
    const records = await load('ctrf-report.json');
    expect(byName(records, 'removes an item').attachments).toEqual([
      { path: 'artifacts/removes-an-item.png', mediaType: 'image/png', fileName: 'screenshot' },
      { path: '/builds/shop/artifacts/removes-an-item-trace.zip', mediaType: 'application/zip', fileName: 'trace' },
    ]);
    expect(byName(records, 'search finds [dune]').attachments).toEqual([
      { body: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', encoding: 'base64', mediaType: 'image/png', fileName: 'screenshot.png' },
    ]);
  });

  it('reads UTF-8 with a BOM and CRLF, UTF-16 with a BOM, and Windows-1252 bytes', async () => {
    for (const file of ['bom-crlf.json', 'utf16.json', 'windows-1252.json']) {
      expect((await load(file))[0], file).toMatchObject({ name: 'test_DEMO_9_café', outcome: 'failed', message: 'AssertionError: “€ 3” != “€ 4”' });
    }
  });

  it('fails with invalid_report for an empty, truncated or other JSON file', async () => {
    expect(await rejection(loadReports(['empty.json'], FIXTURES, 'ctrf'))).toMatchObject({ code: 'invalid_report', message: 'empty.json is empty' });
    const truncated = await rejection(load('truncated.json'));
    expect(truncated.code).toBe('invalid_report');
    expect(truncated.message).toMatch(/^truncated\.json:\d+:\d+ is not complete: the file ends before the JSON is complete/);
    expect(() => parseCtrf('{"results":{}}', 'c.json')).toThrow('c.json is not a CTRF report: it has no results.tests array');
    expect(() => parseCtrf('{"results":{"tests":[{"status":"passed"}]}}', 'c.json')).toThrow('c.json results.tests[0] has no name');
  });
});
