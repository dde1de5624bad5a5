import type { DesiredState } from '../model.js';
import type { FieldWarning } from './case-fields.js';
import type { BuildPullFilesOptions, PullFile } from './pull-files.js';
import type { ExistingRepository, GoneItem } from './repository-model.js';

/**
 * The types pull's modules share (`pull.ts` and the stage, merge, sync and tree beside it): here,
 * so that none of them imports `pull.ts` back.
 */

/** What pull asks of a merge, file by file. */
export interface PullMergeHooks {
  /** items (by remote id) whose files stay where they are */
  keepPlace?: BuildPullFilesOptions['keepPlace'];
  /** the keys of `f.fields` to write into the existing file whose current text is `text` */
  fields(f: Extract<PullFile, { action: 'update' }>, text: string): Record<string, unknown>;
}

/** What the repository already holds, with its temporary files a killed run left and its twins. */
export type LocalRepository = ExistingRepository & {
  strays: string[];
  /** files or directories already on disk that macOS and Windows would take for one (`name_twins`) */
  twins?: FieldWarning[];
  /** the repository as loaded, when asked for (`loadExistingRepository(…, { state: true })`) */
  state?: DesiredState;
};

export interface PullResult {
  created: string[];
  updated: string[];
  unchanged: number;
  /** `from → to` of files that moved with their folder */
  moved: { from: string; to: string }[];
  gone: GoneItem[];
  warnings: FieldWarning[];
  counts: { folders: number; cases: number; stepGroups: number };
  /** every item pulled (its file written or found unchanged), by the service's id, with its file */
  items: { kind: Exclude<PullFile['kind'], 'config'>; id: string; path: string }[];
}
