/**
 * How `.feature` files map to test cases: the `gherkin:` section of tmsync.yaml, normalized
 * (docs/gherkin.md describes each option). Plain data: it travels to the parse worker threads.
 */
export interface GherkinOptions {
  /** the folder level each feature adds below its file's directory: its name, the file stem, or none */
  folder: 'feature' | 'stem' | 'none';
  /** a `Rule:` adds a folder level below the feature's, becomes a label, or is ignored */
  rule: 'folder' | 'label' | 'none';
  /** `then`: Then steps (and And/But after them) are the expected result of the step before; `none`: every step is an action */
  expected: 'then' | 'none';
  /** the Background: one step group per file used as each scenario's first step, or the scenarios' preconditions */
  background: 'step_group' | 'preconditions';
  /** a Scenario Outline: one case keeping its placeholders, or one case per examples row */
  outlines: 'one' | 'expand';
  /** with `outlines: expand`, the examples column whose value suffixes each row's title @default the first column */
  outlineTitleColumn?: string;
  /** with `outlines: expand`, the examples column holding each row's id (added on write-back) */
  outlineIdColumn: string;
  /** tags that name no label on the service: kept in the file and not sent (a plan warning counts them), or an error */
  unknownTags: 'keep' | 'error';
  /** tag prefix (without `@`, e.g. `priority:`) → the case field its value sets (`priority`) */
  tagFields: Record<string, string>;
  /** written before the human id in the id tag: `tc:` gives `@tc:SHOP-12` @default '' (`@SHOP-12`) */
  idTagPrefix: string;
  /** where pull writes a case the repository lacks in a feature's folder: a new YAML file, or a scenario appended to the feature */
  newScenarios: 'yaml' | 'feature';
}

export const GHERKIN_DEFAULTS: GherkinOptions = {
  folder: 'feature',
  rule: 'folder',
  expected: 'then',
  background: 'step_group',
  outlines: 'one',
  outlineIdColumn: 'tc_id',
  unknownTags: 'keep',
  tagFields: {},
  idTagPrefix: '',
  newScenarios: 'yaml',
};

/** The `gherkin:` section as written (snake_case), after the schema (`file-schemas.ts`). */
export interface GherkinInput {
  folder?: GherkinOptions['folder'];
  rule?: GherkinOptions['rule'];
  expected?: GherkinOptions['expected'];
  background?: GherkinOptions['background'];
  outlines?: GherkinOptions['outlines'];
  outline_title_column?: string;
  outline_id_column?: string;
  unknown_tags?: GherkinOptions['unknownTags'];
  tag_fields?: Record<string, string>;
  id_tag_prefix?: string;
  new_scenarios?: GherkinOptions['newScenarios'];
}

export function gherkinOptions(input: GherkinInput | undefined): GherkinOptions {
  const i = input ?? {};
  return {
    folder: i.folder ?? GHERKIN_DEFAULTS.folder,
    rule: i.rule ?? GHERKIN_DEFAULTS.rule,
    expected: i.expected ?? GHERKIN_DEFAULTS.expected,
    background: i.background ?? GHERKIN_DEFAULTS.background,
    outlines: i.outlines ?? GHERKIN_DEFAULTS.outlines,
    ...(i.outline_title_column !== undefined ? { outlineTitleColumn: i.outline_title_column } : {}),
    outlineIdColumn: i.outline_id_column ?? GHERKIN_DEFAULTS.outlineIdColumn,
    unknownTags: i.unknown_tags ?? GHERKIN_DEFAULTS.unknownTags,
    tagFields: { ...(i.tag_fields ?? {}) },
    idTagPrefix: i.id_tag_prefix ?? GHERKIN_DEFAULTS.idTagPrefix,
    newScenarios: i.new_scenarios ?? GHERKIN_DEFAULTS.newScenarios,
  };
}
