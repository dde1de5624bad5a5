/** Pull: the service's project into repository files, with the three-way merge and the sync base. */
export { buildRepositoryModel, type BuildModelOptions, type ExistingRepository, type RepositoryModel, type GoneItem } from './repository-model.js';
export { buildPullFiles, type PullFile, type PullFilesResult, type BuildPullFilesOptions } from './pull-files.js';
export { pullIntoRepository, loadExistingRepository, type PullOptions, type PullResult, type PullMergeHooks } from './pull.js';
export { PullMerge, type Prefer, type PullConflict, type PullMergeInput, type PullMergeSummary } from './pull-merge.js';
export { preparePullMerge, recordPull, type PreparedPullMerge } from './pull-sync.js';
export { implicitKeys, type KeepImplicit } from './pull-implicit.js';
export { createPullStage, type PullStage, type PullStageOptions } from './pull-stage.js';
export { slugify, isPortableDirName, safeDirName } from './naming.js';
