import { withoutCredentials } from '../url-credentials.js';
import { CASE_FIELD_KEYS, STEP_GROUP_FIELD_KEYS } from '../fields.js';
import type { ActualState } from '../model.js';
import { caseDocument, stepGroupDocument } from '../repository/documents.js';
import { defaultFormat } from '../repository/format.js';
import type { FieldWarning } from './case-fields.js';
import { buildRepositoryModel, type BuildModelOptions, type GoneItem, type ModelCase, type ModelFolder, type ModelStepGroup } from './repository-model.js';

/**
 * What `pull` writes, as data: a new file with its whole content, or an existing file with the
 * top-level keys to set (kept in place so comments and formatting survive; `undefined` removes
 * a key). Pure, so the naming and content rules are tested without a disk.
 */
export type PullFile =
  | { kind: PullFileKind; path: string; action: 'create'; content: string; itemId?: string }
  | {
      kind: PullFileKind;
      path: string;
      /** the service's id of the item the file describes (none for tmsync.yaml) */
      itemId?: string;
      action: 'update';
      /** the whole file as a fresh pull writes it: when the file reads exactly so, nothing changes */
      content: string;
      /** every key the format manages for this kind; undefined = remove it */
      fields: Record<string, unknown>;
      /** the file's current path when it must move first (its folder changed) */
      renameFrom?: string;
    };

export type PullFileKind = 'case' | 'step_group' | 'folder' | 'config';

export interface BuildPullFilesOptions extends BuildModelOptions {
  /** write a `tmsync.yaml` with these settings (when the repository has none) */
  config?: PulledConfig;
  /**
   * Render each file's `content` when it is first read instead of here (the same text, memoized):
   * `pull` then renders file N while files before it are being written, instead of rendering all
   * of them before the first write; an update's `fields` are computed when first read too.
   * @default false
   */
  lazyContent?: boolean;
}

/** What a fresh pull writes into `tmsync.yaml`. */
export interface PulledConfig {
  project: string;
  baseUrl?: string;
  scope?: string[];
  casesDir?: string;
  stepGroupsDir?: string;
}

interface PullFilesResult {
  files: PullFile[];
  /** local files whose items the service no longer has (never deleted) */
  gone: GoneItem[];
  warnings: FieldWarning[];
  counts: { folders: number; cases: number; stepGroups: number };
}

/** The top-level keys each kind of file may hold, in the format's order. */
export const MANAGED_KEYS: Record<Exclude<PullFileKind, 'config'>, readonly string[]> = {
  case: ['id', 'title', ...CASE_FIELD_KEYS],
  step_group: ['id', 'title', ...STEP_GROUP_FIELD_KEYS],
  folder: ['id', 'name', 'order'],
};

/** New files are written in the default format (YAML), through the format interface (`format.ts`). */
export function renderModelCase(c: ModelCase, path = c.file): string {
  return defaultFormat().render('case', caseDocument(c), { path });
}
export function renderModelStepGroup(g: ModelStepGroup, path = g.file): string {
  return defaultFormat().render('step_group', stepGroupDocument(g), { path });
}
function renderModelFolder(f: ModelFolder, includeIds: boolean, path = f.file): string {
  const doc = folderDoc(f, includeIds);
  return defaultFormat().render('folder', { id: doc.id, name: doc.name, order: doc.order }, { path });
}

function folderDoc(f: ModelFolder, includeIds: boolean): { id?: string; name?: string; order?: number } {
  return {
    ...(includeIds ? { id: f.remote.id } : {}),
    ...(f.nameOverride !== undefined ? { name: f.nameOverride } : {}),
    order: f.remote.order,
  };
}

function fileFor(
  kind: Exclude<PullFileKind, 'config'>,
  path: string,
  existingFile: string | undefined,
  render: (path: string) => string,
  doc: () => Record<string, unknown>,
  lazy: boolean,
  itemId: string,
): PullFile {
  const file: PullFile =
    existingFile === undefined
      ? { kind, path, action: 'create', content: '', itemId }
      : { kind, path, action: 'update', content: '', itemId, fields: lazy ? {} : managedFields(kind, doc()), ...(existingFile !== path ? { renameFrom: existingFile } : {}) };
  if (!lazy) {
    file.content = render(path);
    return file;
  }
  if (file.action === 'update') {
    // only needed when the file differs from `content`: most of a re-pull's files do not
    let fields: Record<string, unknown> | undefined;
    Object.defineProperty(file, 'fields', {
      enumerable: true,
      configurable: true,
      get: () => (fields ??= managedFields(kind, doc())),
      set: (v: Record<string, unknown>) => {
        fields = v;
      },
    });
  }
  let content: string | undefined;
  Object.defineProperty(file, 'content', {
    enumerable: true,
    configurable: true,
    get: () => (content ??= render(path)),
    set: (v: string) => {
      content = v;
    },
  });
  return file;
}

function managedFields(kind: Exclude<PullFileKind, 'config'>, doc: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of MANAGED_KEYS[kind]) fields[key] = doc[key];
  return fields;
}

/** The configuration a fresh pull writes: just enough for `plan` to find the project again. */
function renderPulledConfig(config: PulledConfig): string {
  const lines = ['# written by `tmsync pull`; the API key comes from TMSYNC_API_KEY, never from this file'];
  lines.push(`project: ${JSON.stringify(config.project)}`);
  if (config.baseUrl) lines.push(`base_url: ${JSON.stringify(withoutCredentials(config.baseUrl))}`);
  if (config.casesDir) lines.push(`cases_dir: ${JSON.stringify(config.casesDir)}`);
  if (config.stepGroupsDir) lines.push(`step_groups_dir: ${JSON.stringify(config.stepGroupsDir)}`);
  if (config.scope && config.scope.length > 0) lines.push(`scope: [${config.scope.map((s) => JSON.stringify(s)).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

export function buildPullFiles(actual: ActualState, options: BuildPullFilesOptions = {}): PullFilesResult {
  const includeIds = options.includeIds ?? true;
  const lazy = options.lazyContent ?? false;
  const model = buildRepositoryModel(actual, { ...options, includeIds });
  const files: PullFile[] = [];
  if (options.config) files.push({ kind: 'config', path: 'tmsync.yaml', action: 'create', content: renderPulledConfig(options.config) });
  for (const f of model.folders) {
    // a folder a file's items add has no directory: nothing to write for it
    if (f.inFile) continue;
    const existingFile = f.movedFrom ?? (options.existing?.folders.some((e) => e.file === f.file) ? f.file : undefined);
    const doc = folderDoc(f, includeIds);
    files.push(fileFor('folder', f.file, existingFile, (p) => renderModelFolder(f, includeIds, p), () => ({ id: doc.id, name: doc.name, order: doc.order }), lazy, f.remote.id));
  }
  for (const g of model.stepGroups) files.push(fileFor('step_group', g.file, g.existingFile, (p) => renderModelStepGroup(g, p), () => stepGroupDocument(g), lazy, g.remote.id));
  const memo = options.memo;
  const renderCase = (c: ModelCase, p: string) => {
    // rendered while the state was read, from these very fields, for this directory
    const early = memo?.get(c.remote);
    if (early?.rendered && early.fields === c.fields && early.rendered.dir === p.slice(0, p.lastIndexOf('/'))) return early.rendered.content;
    return renderModelCase(c, p);
  };
  for (const c of model.cases) files.push(fileFor('case', c.file, c.existingFile, (p) => renderCase(c, p), () => caseDocument(c), lazy, c.remote.id));
  return {
    files,
    gone: model.gone,
    warnings: model.warnings,
    counts: { folders: model.folders.length, cases: model.cases.length, stepGroups: model.stepGroups.length },
  };
}

