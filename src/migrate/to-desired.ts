import { createHash } from 'node:crypto';
import type { ActualState, DesiredState } from '../model.js';
import { buildRepositoryModel, type RepositoryModel } from '../pull/repository-model.js';

interface ActualToDesiredOptions {
  /** only this folder subtree (names from the top) */
  folder?: string[];
  /** where the virtual repository lives; nothing is written there @default '.' */
  root?: string;
  /** keep the source's ids (only meaningful against the same service) @default false */
  includeIds?: boolean;
}

interface ActualToDesiredResult {
  state: DesiredState;
  model: RepositoryModel;
}

/**
 * A project read from the service as the desired state a repository pulled from it would load
 * as: the same names, files and folded steps as `pull` writes, but in memory. Without ids,
 * items meet the target's by natural key (folder path and name, folder path and title, step group
 * title), so applying it twice adopts what the first run created.
 */
export function actualToDesired(actual: ActualState, options: ActualToDesiredOptions = {}): ActualToDesiredResult {
  const includeIds = options.includeIds ?? false;
  const model = buildRepositoryModel(actual, { includeIds, ...(options.folder ? { folder: options.folder } : {}) });
  const state: DesiredState = {
    root: options.root ?? '.',
    casesDir: 'cases',
    stepGroupsDir: 'step_groups',
    // the subtree itself, not its top-level folder: the siblings it was not taken with stay out
    ...(options.folder && options.folder.length > 0 ? { scope: [options.folder.join('/')] } : {}),
    defaults: {},
    folders: model.folders.map((f) => ({
      path: f.path,
      name: f.name,
      dir: f.dir,
      ...(includeIds ? { id: f.remote.id } : {}),
      // an ancestor of the subtree keeps whatever place it has in the target
      ...(f.ancestor ? {} : { order: f.remote.order }),
      file: f.file,
    })),
    cases: model.cases.map((c) => ({
      file: c.file,
      folderPath: c.folderPath,
      ...(c.id !== undefined ? { id: c.id } : {}),
      title: c.title,
      fields: c.fields,
      lines: {},
    })),
    stepGroups: model.stepGroups.map((g) => ({
      key: g.key,
      file: g.file,
      ...(g.id !== undefined ? { id: g.id } : {}),
      title: g.title,
      ...(g.description !== undefined ? { description: g.description } : {}),
      ...(g.labels !== undefined ? { labels: g.labels } : {}),
      steps: g.steps,
      lines: {},
    })),
    contentHash: '',
  };
  state.contentHash = createHash('sha256')
    .update(JSON.stringify([state.folders, state.cases, state.stepGroups]))
    .digest('hex');
  return { state, model };
}
