import { join } from 'node:path';
import { CASE_FIELD_KEYS } from '../fields.js';
import { setFileFields } from '../repository/edit-file.js';
import { scanAutomation } from './automation-scan.js';
import { isAutomatedType } from './automated-type.js';

/**
 * `results push --mark-automated` (or `results.mark_automated: true`): the cases that received an
 * automated result and whose case file does not say they are automated get `automation_type` set
 * to the service's automated type in their file, and nothing else: the service learns of it only
 * through `tmsync plan` (which shows each as an update) and `tmsync apply`, so a reviewer sees the
 * change as a diff and a plan before it is sent (docs/automation.md). A case no YAML file of the
 * repository holds is listed, never created.
 */

export interface MarkAutomatedOptions {
  root: string;
  casesDir: string;
  /** the cases that received a result: their id and human id */
  cases: readonly { id: string; humanId?: string }[];
  /** the service's name of the automated type */
  automatedType: string;
  /** the service's automation types (an alias written in a file counts as its name) */
  types?: readonly { name: string; alias?: string | null }[];
  /** `defaults.automation_type` of tmsync.yaml: what a file without the key gets */
  defaultType?: string;
  /** list what would change; edit nothing */
  dryRun?: boolean;
}

export interface MarkAutomatedResult {
  automatedType: string;
  /** the files whose automation_type was (or would be) set; `from` the value they had (undefined: the default) */
  edited: { path: string; ref: string; from?: string }[];
  /** cases whose file already says automated */
  already: number;
  /** refs of cases no YAML case file holds (a .feature file, or not pulled yet) */
  notInRepository: string[];
}

const ORDER = ['id', 'title', ...CASE_FIELD_KEYS, 'source', 'automation'];

export async function markAutomated(options: MarkAutomatedOptions): Promise<MarkAutomatedResult> {
  const entries = await scanAutomation(options.root, options.casesDir);
  const byRef = new Map<string, (typeof entries)[number]>();
  for (const e of entries) if (e.id) byRef.set(e.id.toUpperCase(), e);
  const result: MarkAutomatedResult = { automatedType: options.automatedType, edited: [], already: 0, notInRepository: [] };
  const done = new Set<string>();
  for (const c of options.cases) {
    const ref = c.humanId ?? c.id;
    const entry = (c.humanId !== undefined ? byRef.get(c.humanId.toUpperCase()) : undefined) ?? byRef.get(c.id.toUpperCase());
    if (!entry) {
      result.notInRepository.push(ref);
      continue;
    }
    if (done.has(entry.path)) continue;
    done.add(entry.path);
    const current = entry.automationType ?? options.defaultType;
    if (isAutomatedType(current, options.automatedType, options.types)) {
      result.already++;
      continue;
    }
    if (!options.dryRun) await setFileFields(join(options.root, entry.path), { automation_type: options.automatedType }, { root: options.root, order: ORDER });
    result.edited.push({ path: entry.path, ref, ...(entry.automationType !== undefined ? { from: entry.automationType } : {}) });
  }
  return result;
}
