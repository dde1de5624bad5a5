import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFixture, rejectionOf } from '../support/report-files.js';
import { detectFormat, loadReports } from '../../src/results/load-reports.js';
import { mapResults } from '../../src/results/map-results.js';
import { parsePlaywrightJson } from '../../src/results/playwright-json.js';
import type { TestRecord } from '../../src/results/record.js';
import { testKeys } from '../../src/results/test-key.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/playwright/', import.meta.url));

const load = (file: string): Promise<TestRecord[]> => loadFixture(FIXTURES, file);

const rejection = rejectionOf;

describe('Playwright JSON reporter', () => {
  it('is told by its shape', async () => {
    for (const file of ['report.json', 'bom-crlf.json', 'utf16.json', 'windows-1252.json', 'truncated.json']) {
      expect(detectFormat(await readFile(`${FIXTURES}${file}`), file), file).toBe('playwright');
    }
  });

  it('makes one record per spec and project, outcome from the test status (flaky is passed)', async () => {
    const records = await load('report.json');
    expect(records.map((r) => [r.name, r.properties.project, r.outcome])).toEqual([
      ['DEMO-1 loads the cart', 'chromium', 'passed'],
      ['pays with a saved card', 'chromium', 'passed'],
      ['pays with a saved card', 'firefox', 'failed'],
      ['declined card shows an error', 'chromium', 'passed'],
      ['DEMO-4 redeems a gift card @slow', 'chromium', 'skipped'],
      ['DEMO-5 expected to fail', 'chromium', 'passed'],
      ['DEMO-6 interrupted', 'chromium', 'error'],
    ]);
  });

  it('reads file, describes, duration, retries, the last error without colours, annotations and tags', async () => {
    const records = await load('report.json');
    const [, flaky, firefox, declined, gift] = records;
    expect(flaky).toMatchObject({ classname: 'checkout.spec.ts', file: 'checkout.spec.ts', suites: ['Checkout'], durationMs: 2310, properties: { project: 'chromium', retries: '1' }, tags: ['smoke', 'DEMO-2'] });
    expect(flaky.message).toBeUndefined();
    expect(firefox).toMatchObject({ message: 'Test timeout of 30000ms exceeded.', properties: { project: 'firefox', retries: '1' } });
    expect(declined.properties).toEqual({ project: 'chromium', test_case: 'DEMO-3', issue: 'https://tracker.example/SHOP/issues/311' });
    // before Playwright 1.42 the JSON has no tags: the title's @tags are read
    expect(gift).toMatchObject({ suites: ['Checkout', 'gift cards'], tags: ['slow'], properties: { skip: 'gift cards disabled' } });
    expect(testKeys(flaky)).toContain('checkout.spec.ts > Checkout > pays with a saved card');
    const first = parsePlaywrightJson('{"suites":[{"title":"a.spec.ts","file":"a.spec.ts","specs":[{"title":"t","tests":[{"projectName":"p","status":"unexpected","results":[{"status":"failed","error":{"message":"\\u001b[31mboom\\u001b[39m"}}]}]}]}]}', 'r.json');
    expect(first[0].message).toBe('boom');
  });

  it('maps both projects of a spec to its case, worst wins; annotations and tags name cases', async () => {
    const records = await load('report.json');
    const outcome = Object.fromEntries(mapResults(records, { prefix: 'DEMO' }).cases.map((c) => [c.ref, c.outcome]));
    expect(outcome).toEqual({ 'DEMO-1': 'passed', 'DEMO-2': 'failed', 'DEMO-3': 'passed', 'DEMO-4': 'skipped', 'DEMO-5': 'passed', 'DEMO-6': 'error' });
  });

  it('collects every attempt\'s attachments: paths as written, bodies as base64', async () => {
    const records = await load('report.json');
    expect(records[1].attachments?.map((a) => a.path)).toEqual([
      '/builds/shop/test-results/checkout-Checkout-pays-with-a-saved-card-chromium/test-failed-1.png',
      '/builds/shop/test-results/checkout-Checkout-pays-with-a-saved-card-chromium/trace.zip',
    ]);
    expect(records[2].attachments).toEqual([
      { path: '/builds/shop/test-results/checkout-firefox/test-failed-1.png', mediaType: 'image/png', fileName: 'screenshot' },
      { path: '/builds/shop/test-results/checkout-firefox-retry1/test-failed-1.png', mediaType: 'image/png', fileName: 'screenshot' },
      { body: 'Y29uc29sZSBlcnJvcjogNTAw', encoding: 'base64', mediaType: 'text/plain', fileName: 'console' },
    ]);
  });

  it('reads UTF-8 with a BOM and CRLF, UTF-16 with a BOM, and Windows-1252 bytes; a project without a name is left out', async () => {
    for (const file of ['bom-crlf.json', 'utf16.json', 'windows-1252.json']) {
      const [r] = await load(file);
      expect(r, file).toMatchObject({ name: 'DEMO-7 crème – brûlée @dessert', file: 'café.spec.ts', outcome: 'passed', tags: ['dessert'], properties: {} });
    }
  });

  it('fails with invalid_report for an empty, truncated or other JSON file', async () => {
    expect(await rejection(loadReports(['empty.json'], FIXTURES, 'playwright'))).toMatchObject({ code: 'invalid_report', message: 'empty.json is empty' });
    const truncated = await rejection(load('truncated.json'));
    expect(truncated.message).toMatch(/^truncated\.json:\d+:\d+ is not complete: the file ends before the JSON is complete/);
    expect(() => parsePlaywrightJson('{"config":{}}', 'r.json')).toThrow('r.json is not a Playwright JSON report: it has no suites array');
    expect(() => parsePlaywrightJson('{"suites":[{"specs":{}}]}', 'r.json')).toThrow('r.json suites[0].specs is not an array');
  });
});
