import { editFeatureText, featureDocument } from './gherkin-edit.js';
import { parseFeatureFile } from './gherkin-parse.js';
import { GHERKIN_DEFAULTS } from './gherkin-options.js';
import type { RepositoryFormat } from './repository-format.js';

/**
 * Gherkin (`.feature`): a file holds several cases (one per scenario, or per examples row) and a
 * step group (its background), each at an address in the file (`gherkin-parse.ts`); their ids are
 * tags written back in place (`gherkin-edit.ts`). docs/gherkin.md.
 */
export const gherkinFormat: RepositoryFormat = {
  name: 'gherkin',
  extensions: ['.feature'],
  builtIn: true,
  parseItems: (file, text, options) => parseFeatureFile(file, text, options?.gherkin ?? GHERKIN_DEFAULTS),
  writes: { case: ['id', 'title', 'steps'], step_group: ['id', 'steps'], folder: [] },
  render(kind, document) {
    if (kind !== 'case') throw new Error(`the gherkin format writes no new ${kind} files`);
    const title = String(document.title ?? '');
    const lines = [`Feature: ${title}`, '', `  Scenario: ${title}`];
    return editFeatureText(`${lines.join('\n')}\n`, { steps: document.steps }, '1');
  },
  readDocument: (text, options) => featureDocument(text, options?.at, options?.read?.gherkin ?? GHERKIN_DEFAULTS, options?.file),
  editDocument(text, fields, options) {
    const read = options.read?.gherkin ?? GHERKIN_DEFAULTS;
    return editFeatureText(text ?? '', fields, options.at, read, options.file);
  },
};
