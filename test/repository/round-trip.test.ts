import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredCaseFields, DesiredStep } from '../../src/model.js';
import { loadConfig, loadRepository, parseCaseFile, renderCaseYaml, renderStepGroupYaml, parseStepGroupFile } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

// seeded, so a failure reproduces; FC_SEED explores other inputs
fc.configureGlobal({ seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261123 });

/** Strings that trip YAML writers: keywords, indicators, spaces at the edges, line breaks. */
const special = fc.constantFrom(
  'yes', 'no', 'null', 'Null', '~', 'true', 'false', 'on', 'off', 'y', 'n', '1', '0x1f', '1e3', '.5', '.inf', '-.nan',
  '#', '# comment', 'a #b', '- item', '? key', ': v', 'a: b', '[x]', '{y}', '&anchor', '*alias', '!tag', '%YAML', '@at',
  '`tick`', '|', '>', "'", '"', '  leading', 'trailing  ', ' ', '', '\t', 'x\n', '\n', '\n\nx', 'a\r\nb', 'x\n  indented\n',
  '---', '...', 'multi\n\nparagraph\n', 'é ü 中文 🚀', '\u00a0nbsp', 'zero\u200bwidth', '\\', 'C:\\path',
);
const line = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), special);
const text = fc.oneof(
  { weight: 3, arbitrary: line },
  { weight: 2, arbitrary: fc.array(line, { maxLength: 5 }).map((ls) => ls.join('\n')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 3000, maxLength: 6000 }) },
);
const title = text.filter((t) => /\S/.test(t));

const step: fc.Arbitrary<DesiredStep> = fc.oneof(
  fc.record({ kind: fc.constant('step' as const), action: text, expected: text }),
  fc.constant({ kind: 'use' as const, use: 'shared' }),
);

const fields: fc.Arbitrary<DesiredCaseFields> = fc
  .record(
    {
      description: text,
      preconditions: text,
      type: text,
      status: text,
      priority: text,
      automationType: text,
      owner: text,
      reviewer: text,
      labels: fc.array(text, { maxLength: 4 }),
    },
    { requiredKeys: [] },
  )
  .chain((base) =>
    fc.oneof(
      fc.constant(base),
      fc.array(step, { maxLength: 5 }).map((steps) => ({ ...base, template: 'STEPS' as const, steps })),
      fc
        .record({ stepsText: text, expectedResults: text }, { requiredKeys: [] })
        .filter((t) => t.stepsText !== undefined || t.expectedResults !== undefined)
        .map((t) => ({ ...base, template: 'TCD' as const, ...t })),
      fc.constantFrom('STEPS' as const, 'TCD' as const).map((template) => ({ ...base, template })),
    ),
  );

const caseArb = fc.record(
  { id: fc.nat({ max: 99999 }).map((n) => `SHOP-${n}`), title, fields },
  { requiredKeys: ['title', 'fields'] },
);

/** A loaded case without what only the loader knows (positions, file, folder). */
function comparable(c: { id?: string; title: string; fields: DesiredCaseFields }) {
  const { steps, ...rest } = c.fields;
  return {
    ...(c.id !== undefined ? { id: c.id } : {}),
    title: c.title,
    fields: { ...rest, ...(steps ? { steps: steps.map(({ source: _s, ...s }) => s) } : {}) },
  };
}

describe('write → load round trip', () => {
  it('gives back every generated case from its rendered YAML (one file parsed alone)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const yaml = renderCaseYaml(c);
        const { parsed, problems } = parseCaseFile('c.yaml', yaml);
        expect(problems.filter((p) => p.severity !== 'warning')).toEqual([]);
        expect(comparable(parsed!.item)).toEqual(comparable(c));
      }),
      { numRuns: 400 },
    );
  });

  it('gives back every generated step group from its rendered YAML', () => {
    const group = fc.record(
      {
        id: fc.nat({ max: 999 }).map((n) => `SHOP-SG-${n}`),
        title,
        description: text,
        labels: fc.array(text, { maxLength: 3 }),
        steps: fc.array(fc.record({ action: text, expected: text }), { maxLength: 4 }),
      },
      { requiredKeys: ['title', 'steps'] },
    );
    fc.assert(
      fc.property(group, (g) => {
        const { parsed, problems } = parseStepGroupFile('step_groups/k.yaml', 'k', renderStepGroupYaml(g));
        expect(problems).toEqual([]);
        const { file: _f, key: _k, lines: _l, steps, ...rest } = parsed!.item;
        expect({ ...rest, steps: steps.map(({ source: _s, ...s }) => s) }).toEqual(g);
      }),
      { numRuns: 200 },
    );
  });

  it('loads a whole repository of generated cases written to disk back into equal cases', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 6 }), async (cases) => {
        const dir = await makeRepo({
          'tmsync.yaml': 'project: SHOP\n',
          'step_groups/shared.yaml': 'title: Shared\n',
        });
        // distinct ids and one folder per case keep identity rules out of the way
        const written = cases.map((c, i) => ({ ...c, ...(c.id ? { id: `SHOP-${i + 1}` } : {}) }));
        for (const [i, c] of written.entries()) {
          await mkdir(join(dir, 'cases', `F${i}`), { recursive: true });
          await writeFile(join(dir, 'cases', `F${i}`, 'case.yaml'), renderCaseYaml(c));
        }
        const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
        const { state, problems } = await loadRepository(root, config);
        expect(problems).toEqual([]);
        expect(state.cases.map(comparable)).toEqual(written.map(comparable));
        expect(state.cases.map((c) => c.folderPath)).toEqual(written.map((_, i) => [`F${i}`]));
      }),
      { numRuns: 30 },
    );
  });
});
