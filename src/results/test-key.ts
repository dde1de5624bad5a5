import type { TestRecord } from './record.js';

/**
 * The names an automated test is known by, which a mapping file's keys and a case file's
 * `automation.tests` entries are matched against: `classname.name` (JUnit, TRX, NUnit, TestNG,
 * Robot's suite path), the bare `name`, and, when the report says which file the test is in,
 * `file > suite > … > name` (Playwright's and Cucumber's form: `checkout.spec.ts > pays with card`).
 * The first is the one `tmsync import junit|…` writes.
 */
export function testKeys(record: TestRecord): string[] {
  const keys: string[] = [];
  if (record.classname !== '') keys.push(`${record.classname}.${record.name}`);
  keys.push(record.name);
  if (record.file !== undefined && record.file !== '') keys.push([record.file, ...record.suites.filter((s) => s !== record.file), record.name].join(' > '));
  return [...new Set(keys)];
}

/** The name `tmsync import junit|…` writes into a new case's `automation.tests`: the first of {@link testKeys}. */
export function primaryTestKey(record: TestRecord): string {
  return testKeys(record)[0];
}
