import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ioError, type Problem } from '../errors.js';
import type { DesiredCase } from '../model.js';
import type { AutomatedCase } from '../test-patterns.js';
import type { Parsed } from './case-file.js';
import type { TmsyncConfig } from './config.js';
import { isParsedItems, parseBytes } from './parse-files.js';
import { decodeText } from './text-file.js';
import { walkCasesDir } from './walk.js';

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
      bytes = await readFile(join(root, rel));
    } catch (err) {
      throw ioError(err, 'read', rel);
    }
    const decoded = decodeText(bytes);
    if ('problem' in decoded || !decoded.decoded.text.includes('automation')) continue;
    const r = parseBytes({ kind: 'case', rel }, bytes, config.gherkin ? { gherkin: config.gherkin } : {});
    problems.push(...r.problems.filter((p) => p.severity !== 'warning'));
    // a `.feature` scenario has no place for the key: only single-case files hold one
    if (!r.parsed || isParsedItems(r.parsed)) continue;
    const item = (r.parsed as Parsed<DesiredCase>).item;
    if (item.automation) cases.push(automatedCase(item, item.automation.tests));
  }
  return { cases, problems };
}
