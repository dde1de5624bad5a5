/** The tests repository: YAML files → desired state, and the writers pull and apply use. */
export {
  CONFIG_DEFAULTS,
  CONFIG_FILE_NAME,
  describeSearch,
  findConfigFile,
  loadConfig,
  parseConfigText,
  parseDuration,
  type TmsyncConfig,
} from './config.js';
export { loadRepository } from './loader.js';
export { validateRepository } from './validate.js';
export { renderCaseYaml, renderFolderYaml, renderStepGroupYaml } from './yaml-render.js';
export { setYamlFields } from './edit-file.js';
export {
  removeStrayTempFiles,
  writeFileAtomic,
  writeFilesAtomic,
} from './atomic-write.js';
export {
  registerFormat,
  type RepositoryFormat,
} from './format.js';
export { type FileOps } from './file-ops.js';
export { parseCaseFile, parseStepGroupFile } from './case-file.js';
export { parseFolderFile } from './folder-file.js';
export { schemaComment, SCHEMA_DIR, writeSchemaFiles } from './schema-comment.js';
export {
  buildSpecJsonSchemas,
  renderJsonSchemaFile,
} from './file-schemas.js';
export { GITIGNORE_LINE, STARTER_DEFAULTS, starterFiles, type StarterTarget } from './starter.js';
