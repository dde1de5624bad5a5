import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmsyncError, ValidationError } from '../../src/errors.js';
import { loadConfig, parseDuration } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

describe('loadConfig', () => {
  it('applies the documented defaults to a minimal tmsync.yaml', async () => {
    const dir = await makeRepo({ 'tmsync.yaml': 'project: SHOP\n' });
    const { config, root, file } = await loadConfig(join(dir, 'tmsync.yaml'));
    expect(root).toBe(dir);
    expect(file).toBe(join(dir, 'tmsync.yaml'));
    expect(config).toEqual({
      project: 'SHOP',
      casesDir: 'cases',
      stepGroupsDir: 'step_groups',
      defaults: {},
      rateLimit: 8,
      concurrency: 4,
      pageSize: 100,
      requestTimeoutMs: 30_000,
      maxRetries: 6,
      maxPages: 10_000,
      maxResponseBytes: 64 * 1024 * 1024,
      resultsEncoding: 'auto',
      profiles: {},
    });
  });

  it('maps every snake_case key of the product example to camelCase', async () => {
    const dir = await makeRepo({
      'tmsync.yaml': `project: SHOP
base_url: http://127.0.0.1:4010/api/v1
app_url: http://127.0.0.1:4010
cases_dir: tests/cases/
step_groups_dir: ./groups
scope: [Authentication, Checkout]
defaults:
  type: Functional
  status: Draft
  priority: Medium
  automation_type: Not Automated
  owner: qa-lead@example.com
rate_limit: 2.5
concurrency: 2
page_size: 50
request_timeout: 2m
max_retries: 0
max_pages: 200
max_response_size: 16MiB
results: { encoding: multipart }
profiles:
  staging: { base_url: https://staging.example/api/v1, project: SHOP, api_key_env: STAGING_KEY, rate_limit: 1, concurrency: 1, app_url: https://app.example }
`,
    });
    const { config } = await loadConfig(join(dir, 'tmsync.yaml'));
    expect(config).toEqual({
      project: 'SHOP',
      baseUrl: 'http://127.0.0.1:4010/api/v1',
      appUrl: 'http://127.0.0.1:4010',
      casesDir: 'tests/cases',
      stepGroupsDir: 'groups',
      scope: ['Authentication', 'Checkout'],
      defaults: { type: 'Functional', status: 'Draft', priority: 'Medium', automationType: 'Not Automated', owner: 'qa-lead@example.com' },
      rateLimit: 2.5,
      concurrency: 2,
      pageSize: 50,
      requestTimeoutMs: 120_000,
      maxRetries: 0,
      maxPages: 200,
      maxResponseBytes: 16 * 1024 * 1024,
      resultsEncoding: 'multipart',
      profiles: {
        staging: {
          baseUrl: 'https://staging.example/api/v1',
          appUrl: 'https://app.example',
          project: 'SHOP',
          apiKeyEnv: 'STAGING_KEY',
          rateLimit: 1,
          concurrency: 1,
        },
      },
    });
  });

  it('reads request_timeout as seconds when it is a number and as a duration when it is a string', () => {
    expect(parseDuration(30)).toBe(30_000);
    expect(parseDuration(0.5)).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('45')).toBe(45_000);
  });

  it('reads max_pages and max_response_size (bytes or a size with a unit) for the pagination guards', async () => {
    const dir = await makeRepo({ 'tmsync.yaml': 'project: SHOP\nmax_pages: 500\nmax_response_size: 8MiB\n' });
    const { config } = await loadConfig(join(dir, 'tmsync.yaml'));
    expect(config.maxPages).toBe(500);
    expect(config.maxResponseBytes).toBe(8 * 1024 * 1024);
    const bytes = await makeRepo({ 'tmsync.yaml': 'project: SHOP\nmax_response_size: 65536\n' });
    expect((await loadConfig(join(bytes, 'tmsync.yaml'))).config.maxResponseBytes).toBe(65536);
    const bad = await makeRepo({ 'tmsync.yaml': 'project: SHOP\nmax_response_size: lots\n' });
    expect(String(await loadConfig(join(bad, 'tmsync.yaml')).catch((e: unknown) => (e as Error).message + JSON.stringify((e as { problems?: unknown }).problems)))).toMatch(
      /max_response_size.*must be a size like 64MiB/,
    );
  });

  it('throws config_not_found with a hint to run tmsync init when the file is missing', async () => {
    const dir = await makeRepo({});
    const err = await loadConfig(join(dir, 'tmsync.yaml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmsyncError);
    expect((err as TmsyncError).code).toBe('config_not_found');
    expect((err as TmsyncError).hint).toMatch(/tmsync init/);
  });

  it('throws a ValidationError with file:line:col problems for an invalid file, refusing an api_key by name', async () => {
    const dir = await makeRepo({ 'tmsync.yaml': 'project: SHOP\napi_key: abc123secret\nconcurrency: two\n' });
    const err = await loadConfig(join(dir, 'tmsync.yaml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const problems = (err as ValidationError).problems;
    expect(problems.map((p) => [p.file, p.line, p.col, p.code])).toEqual([
      ['tmsync.yaml', 2, 1, 'api_key_in_config'],
      ['tmsync.yaml', 3, 14, 'wrong_type'],
    ]);
    expect(JSON.stringify((err as ValidationError).toJSON())).not.toContain('abc123secret');
  });

  it('refuses cases_dir outside the repository and equal directories for cases and step groups', async () => {
    const dir = await makeRepo({ 'tmsync.yaml': 'cases_dir: ../elsewhere\nstep_groups_dir: ../elsewhere\n' });
    const err = (await loadConfig(join(dir, 'tmsync.yaml')).catch((e: unknown) => e)) as ValidationError;
    expect(err.problems.map((p) => `${p.line}:${p.col} ${p.code}`)).toEqual(['1:12 invalid_dir', '2:1 invalid_dir', '2:18 invalid_dir']);
  });
});
