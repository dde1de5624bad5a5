import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ioError, type Problem } from '../errors.js';
import type { DesiredCase } from '../model.js';
import type { AutomatedCase } from '../test-patterns.js';
import type { Parsed } from './case-file.js';
import type { TmsyncConfig } from './config.js';
import { isParsedItems, parseBytes } from './parse-files.js';
import { decodeText } from './text-file.js';
import { walkCasesDir } from './walk.js';

const WORD = Buffer.from('automation');

/** Whether the file may hold the key: the word in its bytes (UTF-8), or in its text when it is UTF-16. */
function mayHoldAutomation(bytes: Buffer): boolean {
  if (bytes.includes(WORD)) return true;
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (!utf16) return false;
  const decoded = decodeText(bytes);
  return !('problem' in decoded) && decoded.decoded.text.includes('automation');
}

/** The cases of a loaded repository that name automated tests (`automation:`), in file order. */
export function automatedCasesOf(cases: readonly DesiredCase[]): AutomatedCase[] {
  return cases.flatMap((c) => (c.automation ? [automatedCase(c, c.automation.tests)] : []));
}

function automatedCase(c: DesiredCase, tests: readonly string[]): AutomatedCase {
  return {
    ...(c.id !== undefined ? { id: c.id } : {}),
    file: c.file,
    title: c.title,
    tests,
    ...(c.lines.automation !== undefined ? { line: c.lines.automation } : {}),
  };
}

/**
 * The cases that name automated tests, read the cheap way for `results push`: every case file is
 * read, but only those whose text holds `automation` are parsed (a push reads the repository on
 * every CI job, and most case files have no such key). Files with problems are left out and their
 * problems returned: a push does not fail on a repository `validate` would refuse.
 */
export async function loadAutomatedCases(root: string, config: TmsyncConfig): Promise<{ cases: AutomatedCase[]; problems: Problem[] }> {
  const walked = await walkCasesDir(root, config.casesDir);
  const cases: AutomatedCase[] = [];
  const problems: Problem[] = [];
  for (const rel of (walked?.dirs ?? []).flatMap((d) => d.caseFiles)) {
    let bytes: Buffer;
    try {
      // synchronous on purpose, as parse-files.ts reads: thousands of small files, most skipped
      bytes = readFileSync(join(root, rel));
    } catch (err) {
      throw ioError(err, 'read', rel);
    }
    if (!mayHoldAutomation(bytes)) continue;
    const r = parseBytes({ kind: 'case', rel }, bytes, config.gherkin ? { gherkin: config.gherkin } : {});
    problems.push(...r.problems.filter((p) => p.severity !== 'warning'));
    // a `.feature` scenario has no place for the key: only single-case files hold one
    if (!r.parsed || isParsedItems(r.parsed)) continue;
    const item = (r.parsed as Parsed<DesiredCase>).item;
    if (item.automation) cases.push(automatedCase(item, item.automation.tests));
  }
  return { cases, problems };
}
