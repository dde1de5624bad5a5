/** Pull: the service's project into repository files, with the three-way merge and the sync base. */
export { buildPullFiles, type PullFile } from './pull-files.js';
export { pullIntoRepository, type PullResult } from './pull.js';
export { type PullConflict } from './pull-merge.js';
export { preparePullMerge, recordPull, type PreparedPullMerge } from './pull-sync.js';
export { implicitKeys, type KeepImplicit } from './pull-implicit.js';
