/**
 * The repository's writers, split by job: rendering (`yaml-render.ts`, the documents of
 * `documents.ts`), in-place editing (`yaml-edit.ts`, `edit-file.ts`) and durable writing
 * (`atomic-write.ts`). Kept as one import for callers written against it; new code imports the
 * module of its job.
 */
export { caseDocument, stepGroupDocument, type StepGroupDocumentInput } from './documents.js';
export { renderCaseYaml, renderFolderYaml, renderStepGroupYaml, type RenderOptions } from './yaml-render.js';
export { setFileFields, setYamlFields, type SetFileFieldsOptions, type SetYamlFieldsOptions } from './edit-file.js';
export {
  createWriteSession,
  removeStrayTempFiles,
  repositoryTempDir,
  resolveWriteTarget,
  stageTempFile,
  syncFileSystem,
  TEMP_DIR,
  writeFileAtomic,
  writeFilesAtomic,
  writeStagedFile,
  type WriteFileOptions,
  type WriteFilesOptions,
  type WriteSession,
} from './atomic-write.js';
