import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Problem } from '../../src/errors.js';
import {
  loadConfig,
  loadRepository,
  parseCaseFile,
  parseConfigText,
  parseFolderFile,
  parseStepGroupFile,
} from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

fc.configureGlobal({ seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 777 });

const VALID_CASE = `# yaml-language-server: $schema=../../node_modules/tmsync/schemas/test-case.schema.json
id: SHOP-12
title: "Pay with a saved card: Visa"
description: |
  Checkout with a card
  stored on the account.
labels: [smoke, payments]
steps:
  - use: login-as-admin
  - action: Open the checkout page
    expected: >
      The saved card
      is preselected
  - {action: 'Press "Pay"', expected: "Done \\u2713"}
anchors: &a [1, 2]
again: *a
`;

const TOKENS = [
  'title:', 'steps:', 'use:', 'action:', 'expected:', 'id:', 'labels:', 'name:', 'order:', 'profiles:', 'api_key:',
  ' ', '  ', '\n', '\t', '- ', '[', ']', '{', '}', ':', ',', '"', "'", '&a ', '*a', '!!str ', '!!binary ', '!custom ',
  '|', '|-', '>', '#', '---', '...', '? ', '%YAML 1.1\n', '%TAG ! tag:x,2000:\n', '<<: ', '~', 'null', '12', '-1.5e3',
  'yes', '\\u0000', '\u0000', '\ufeff', '\r', 'é', '🚀', 'SHOP-1', 'x'.repeat(300),
];
const yamlish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((ts) => ts.join(''));
const anyText = fc.oneof(yamlish, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 }));

/** Every problem must be well-formed: a position and a message. */
function checkProblems(problems: Problem[]): void {
  for (const p of problems) {
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.col).toBeGreaterThanOrEqual(1);
    expect(typeof p.message).toBe('string');
    expect(p.message.length).toBeGreaterThan(0);
    expect(p.code).toMatch(/^[a-z_]+$/);
  }
}

describe('the parsers on random and truncated input', () => {
  it('return problems, never throw, for random YAML-like text in every kind of file', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        checkProblems(parseCaseFile('cases/A/x.yaml', text).problems);
        checkProblems(parseStepGroupFile('step_groups/x.yaml', 'x', text).problems);
        checkProblems(parseFolderFile('cases/A/_folder.yaml', text).problems);
        checkProblems(parseConfigText('tmsync.yaml', text).problems);
      }),
      { numRuns: 2000 },
    );
  });

  it('stay silent: no warning or console output even for odd input like collections as keys', () => {
    const emit = vi.spyOn(process, 'emitWarning');
    const warn = vi.spyOn(console, 'warn');
    const log = vi.spyOn(console, 'log');
    try {
      for (const text of ['? [a, b]\n: c\ntitle: T\n', '{ {x: 1}: 2, title: T }\n', '!unknown x\n', 'title: !!binary aGk=\n']) {
        parseCaseFile('cases/A/x.yaml', text);
        parseConfigText('tmsync.yaml', text);
      }
      expect(emit).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      emit.mockRestore();
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it('return problems, never throw, for every truncation of a valid case file', () => {
    for (let end = 0; end <= VALID_CASE.length; end++) {
      const text = VALID_CASE.slice(0, end);
      const result = parseCaseFile('cases/A/x.yaml', text);
      checkProblems(result.problems);
      expect(result.parsed !== undefined || result.problems.length > 0).toBe(true);
    }
  });

  it('turns an alias bomb into a problem instead of exhausting memory', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 12; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`);
    lines.push('title: *m');
    const { parsed, problems } = parseCaseFile('cases/A/x.yaml', `${lines.join('\n')}\n`);
    expect(parsed).toBeUndefined();
    expect(problems.map((p) => p.code)).toEqual(['yaml_syntax']);
  });

  it('loads a repository of random files without throwing and reports a problem for each bad file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyText, { minLength: 1, maxLength: 8 }), async (texts) => {
        const dir = await makeRepo({ 'tmsync.yaml': 'project: SHOP\n' });
        await mkdir(join(dir, 'cases', 'A'), { recursive: true });
        await mkdir(join(dir, 'step_groups'), { recursive: true });
        for (const [i, t] of texts.entries()) {
          await writeFile(join(dir, 'cases', 'A', `c${i}.yaml`), t);
          await writeFile(join(dir, 'step_groups', `g${i}.yaml`), t);
        }
        await writeFile(join(dir, 'cases', 'A', '_folder.yaml'), texts[0]);
        const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
        const { state, problems } = await loadRepository(root, config);
        checkProblems(problems);
        const loaded = new Set(state.cases.map((c) => c.file));
        for (let i = 0; i < texts.length; i++) {
          const file = `cases/A/c${i}.yaml`;
          if (!loaded.has(file)) expect(problems.some((p) => p.file === file || p.file === 'cases/A/_folder.yaml')).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});
