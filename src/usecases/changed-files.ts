import { basename } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DesiredState } from '../model.js';
import type { TmsyncConfig } from '../repository/config.js';
import { folderSubtreeFiles, type ChangedFiles, type RemovedCaseFile } from '../plan/changed.js';
import type { BuildPlanResult } from '../plan/build-plan.js';
import type { GitChanges } from './git-changes.js';

/** A case file of the repository: a YAML file under the cases directory other than `_folder.yaml`. */
export function isCaseFile(config: TmsyncConfig, file: string): boolean {
  return file.startsWith(`${config.casesDir}/`) && /\.ya?ml$/.test(file) && basename(file) !== '_folder.yaml';
}

/**
 * git's answer in the plan's terms: the removed case files with the id and title they had at REF,
 * and, for each `_folder.yaml` added, edited or deleted, every file of its folder's subtree (see
 * `folderSubtreeFiles`).
 */
export function toChangedFiles(desired: DesiredState, changes: GitChanges): ChangedFiles {
  const isFolderFile = (f: string) => f.startsWith(`${desired.casesDir}/`) && basename(f) === '_folder.yaml';
  const folderFiles = [...changes.present.filter(isFolderFile), ...changes.removed.map((r) => r.file).filter(isFolderFile)];
  const present = [...new Set([...changes.present, ...folderSubtreeFiles(desired, folderFiles)])];
  const removed: RemovedCaseFile[] = [];
  const folderByDir = new Map(desired.folders.map((f) => [f.dir, f.path]));
  for (const r of changes.removed) {
    if (!r.file.startsWith(`${desired.casesDir}/`) || !/\.ya?ml$/.test(r.file) || basename(r.file) === '_folder.yaml') continue;
    const dir = r.file.slice(0, r.file.lastIndexOf('/'));
    const folderPath = folderByDir.get(dir) ?? dir.slice(desired.casesDir.length + 1).split('/').filter((s) => s !== '');
    let id: string | undefined;
    let title: string | undefined;
    try {
      const doc = r.text === undefined ? undefined : (parseYaml(r.text) as unknown);
      if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
        const d = doc as Record<string, unknown>;
        if (typeof d.id === 'string' || typeof d.id === 'number') id = String(d.id);
        if (typeof d.title === 'string') title = d.title;
      }
    } catch {
      // an old version that does not parse names no case: nothing to list
    }
    removed.push({ file: r.file, folderPath, ...(id !== undefined ? { id } : {}), ...(title !== undefined ? { title } : {}) });
  }
  return { present, removed };
}

/** Says in the plan what a --changed-since plan does not see. */
export function withChangedSinceNotes(result: BuildPlanResult, desired: DesiredState, changed: ChangedFiles, git: GitChanges, ref: string): BuildPlanResult {
  const present = new Set(changed.present);
  const inRepository = (f: string) => f.startsWith(`${desired.casesDir}/`) || f.startsWith(`${desired.stepGroupsDir}/`);
  const files = new Set([...git.present, ...git.removed.map((r) => r.file)].filter(inRepository));
  // the files a changed _folder.yaml brought in (its folder's subtree), beside git's own
  const widened = changed.present.filter((f) => !files.has(f) && inRepository(f)).length;
  const folders = widened > 0 ? ` and the ${count(widened, 'other file')} of the folders whose _folder.yaml changed` : '';
  const warnings = [
    {
      code: 'changed_since',
      message: `planned only the ${count(files.size, 'file')} changed since ${ref}${folders}; items elsewhere (drift, unmanaged cases) are not read: a full \`tmsync plan\` shows them`,
    },
    ...desired.stepGroups
      .filter((g) => present.has(g.file) && result.plan.operations.some((op) => op.kind === 'update_step_group' && op.localKey === g.key))
      .map((g) => ({
        code: 'changed_since_step_group',
        file: g.file,
        message: `step group ${g.key} changes: the cases that use it outside the changed files are not read here, so their updates are not planned (a full \`tmsync plan\` plans them)`,
      })),
  ];
  return { ...result, plan: { ...result.plan, warnings: [...result.plan.warnings, ...warnings] } };
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
