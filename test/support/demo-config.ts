import { demoDefaults } from './cases.js';

/**
 * The `tmsync.yaml` of the end-to-end tests: the emulator's demo project, every default a case
 * needs (the demo's lookup names and its owner), then the settings a test gives (`rate_limit`,
 * `concurrency`, …), one per line in the order given.
 */
export function demoConfigYaml(baseUrl: string, settings: Readonly<Record<string, string | number>> = {}): string {
  return [
    'project: DEMO',
    `base_url: ${baseUrl}`,
    'defaults:',
    ...Object.entries(demoDefaults()).map(([key, value]) => `  ${key}: ${value}`),
    ...Object.entries(settings).map(([key, value]) => `${key}: ${value}`),
    '',
  ].join('\n');
}
