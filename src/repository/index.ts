/** The tests repository: YAML files → desired state, and the writers pull and apply use. */
export {
  CONFIG_DEFAULTS,
  CONFIG_FILE_NAME,
  describeSearch,
  findConfigFile,
  loadConfig,
  parseConfigText,
  parseDuration,
  readConfig,
  type TmsyncConfig,
  type TmsyncProfile,
} from './config.js';
export { loadRepository, type LoadRepositoryOptions, type LoadRepositoryResult } from './loader.js';
export { hasErrors, validateRepository, type ValidateRepositoryOptions, type ValidateRepositoryResult } from './validate.js';
export { renderCaseYaml, renderFolderYaml, renderStepGroupYaml, type RenderOptions } from './yaml-render.js';
export { setFileFields, setYamlFields, type SetFileFieldsOptions, type SetYamlFieldsOptions } from './edit-file.js';
export {
  removeStrayTempFiles,
  writeFileAtomic,
  writeFilesAtomic,
  createWriteSession,
  syncFileSystem,
  TEMP_DIR,
  type WriteFileOptions,
} from './atomic-write.js';
export {
  defaultFormat,
  formatOf,
  registerFormat,
  repositoryFormats,
  type EditFileOptions,
  type FormatParseResult,
  type ItemDocument,
  type ItemFileKind,
  type RenderFileOptions,
  type RepositoryFormat,
} from './format.js';
export { fileOps, ioError, isSystemError, nodeFileOps, type FileOps } from './file-ops.js';
export { decodeText, type DecodedText } from './text-file.js';
export { parseCaseFile, parseStepGroupFile } from './case-file.js';
export { folderNameProblem, parseFolderFile, MAX_FOLDER_NAME_LENGTH } from './folder-file.js';
export { schemaComment, SCHEMA_DIR, SCHEMA_FILES, writeSchemaFiles, type SchemaKind } from './schema-comment.js';
export {
  buildSpecJsonSchemas,
  renderJsonSchemaFile,
  configSchema,
  testCaseSchema,
  stepGroupSchema,
  folderSchema,
  CASE_ID_PATTERN,
  STEP_GROUP_ID_PATTERN,
  FOLDER_ID_PATTERN,
} from './file-schemas.js';
export { GITIGNORE_LINE, STARTER_DEFAULTS, STARTER_STEP_GROUP_KEY, starterFiles, type StarterFile, type StarterTarget } from './starter.js';
