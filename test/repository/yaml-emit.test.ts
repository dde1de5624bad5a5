import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fastParseYaml } from '../../src/repository/fast-yaml.js';
import { emitPlainYaml } from '../../src/repository/yaml-emit.js';
import { renderCaseYaml, renderYaml, renderYamlWithLibrary } from '../../src/repository/yaml-render.js';

fc.configureGlobal({ seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 4242 });

/** Pieces of text with every character class the writers treat apart. */
const PIECES = [
  'a', 'Login', ' ', '  ', '\n', '\n\n', '\t', '\r', '\r\n', ':', ': ', '#', ' #', '-', '- ', '?', '[', ']', '{', '}', ',',
  '"', "'", '\\', '|', '>', '&', '*', '!', '%', '@', '`', '---', '...', 'yes', 'no', 'true', 'null', '~', '12', '1.5',
  '0x1F', '0o7', '0b1', '-0x1F', '+0o7', '1_000', '1e3', '.inf', 'é', '🚀', '\u0085', '\u2028', '\u2029', '\ufeff', '\u00a0', '\u0000', '\ud800', 'x'.repeat(90),
];
const text = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z .,]{0,20}(\n[A-Za-z][a-z .]{0,10}){0,2}$/), weight: 3 },
  fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((ps) => ps.join('')),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'yes', 'Login works', 'line one\nline two', 'ends\n', 'ends\n\n', ' lead\nx', 'a\n  \nb'),
);
const scalar = fc.oneof(
  { arbitrary: text, weight: 12 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.oneof(fc.double(), fc.constant(null), fc.constant(-0)), weight: 1 },
);
const KEYS = ['id', 'title', 'steps', 'labels', 'action', 'expected', 'use', 'with', 'yes', 'a b', '1', 'x-y', 'tmsync_source'];
const key = fc.constantFrom(...KEYS);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, scalar, tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
}));
const document: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 });

describe('the direct YAML writer', () => {
  it('writes exactly what the yaml library writes, or leaves the document to it', () => {
    let written = 0;
    fc.assert(
      fc.property(document, fc.option(fc.constant('yaml-language-server: $schema=x.json'), { nil: undefined }), (obj, comment) => {
        const direct = emitPlainYaml(obj, ['labels'], comment);
        if (direct === undefined) return;
        written++;
        expect(direct).toBe(renderYamlWithLibrary(obj, comment === undefined ? {} : { schemaComment: comment }, ['labels']));
        // taken without a read-back check: both readers must read it back as it was
        expect(parse(direct)).toEqual(obj);
        const fast = fastParseYaml(direct);
        if (fast !== undefined) expect(fast.data).toEqual(obj);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 3000) },
    );
    // the comparison above means something only when the writer answers for a good share
    expect(written).toBeGreaterThan(300);
  });

  it('writes a typical test case directly, block scalars, flow labels and quotes included', () => {
    const obj = {
      id: 'C12',
      title: 'Checkout: pay by card',
      labels: ['smoke', 'payments'],
      priority: 'High',
      estimate: 90,
      automated: false,
      description: 'Paying works.\n\nSee the spec.',
      steps: [
        { action: 'Open the cart', expected: 'It shows "2 items"\n' },
        { use: 'login', with: { user: 'yes' } },
      ],
      empty: [],
      custom: {},
    };
    const text = [
      'id: C12',
      'title: "Checkout: pay by card"',
      'labels: [smoke, payments]',
      'priority: High',
      'estimate: 90',
      'automated: false',
      'description: |-',
      '  Paying works.',
      '',
      '  See the spec.',
      'steps:',
      '  - action: Open the cart',
      '    expected: |',
      '      It shows "2 items"',
      '  - use: login',
      '    with:',
      '      user: "yes"',
      'empty: []',
      'custom: {}',
      '',
    ].join('\n');
    expect(emitPlainYaml(obj, ['labels'])).toBe(text);
    expect(renderYamlWithLibrary(obj, {}, ['labels'])).toBe(text);
  });

  it.each([
    ['a null', { a: null }],
    ['a fraction', { a: 1.5 }],
    ['a list in a list', { a: [['x']] }],
    ['a key that is not a plain name', { 'a b': 'x' }],
    ['leading spaces in a block', { a: '  lead\nx' }],
    ['kept line breaks at the end', { a: 'x\n\n' }],
    ['an escape in quotes', { a: 'key: "and" \'both\'' }],
    ['a control character', { a: 'bell\u0007' }],
    ['a document marker', { a: '--- x' }],
    ['nothing', {}],
  ])('leaves %s to the library, and renderYaml writes what the library writes', (_name, obj) => {
    expect(emitPlainYaml(obj)).toBeUndefined();
    if (Object.keys(obj).length > 0) expect(renderYaml(obj, {})).toBe(renderYamlWithLibrary(obj, {}));
  });

  it('writes a binary or signed hexadecimal number as text as the library does, and the fast reader leaves it to the exact read', () => {
    for (const v of ['0b1010', '-0x1F']) {
      const direct = emitPlainYaml({ a: v });
      expect(direct).toBe(`a: ${v}\n`);
      expect(direct).toBe(renderYamlWithLibrary({ a: v }, {}));
      expect(parse(direct!)).toEqual({ a: v });
      // js-yaml would read a number: the fast read answers nothing
      expect(fastParseYaml(direct!)).toBeUndefined();
    }
  });

  it('writes a one-line comment as the library does, an empty one not at all, and leaves a longer one to the library', () => {
    expect(emitPlainYaml({ a: 'x' }, [], 'yaml-language-server: $schema=s.json')).toBe(renderYamlWithLibrary({ a: 'x' }, { schemaComment: 'yaml-language-server: $schema=s.json' }));
    expect(emitPlainYaml({ a: 'x' }, [], '')).toBe('a: x\n');
    expect(renderYamlWithLibrary({ a: 'x' }, { schemaComment: '' })).toBe('a: x\n');
    expect(emitPlainYaml({ a: 'x' }, [], 'c\nd: e')).toBeUndefined();
  });

  it('writes a case file of the repository as before: its keys in order, steps as a list', () => {
    const text = renderCaseYaml({ id: 'C1', title: 'Title', fields: { description: 'one\ntwo', labels: ['a'], steps: [{ kind: 'step', action: 'do', expected: 'see' }] } });
    expect(text).toBe(['id: C1', 'title: Title', 'description: |-', '  one', '  two', 'labels: [a]', 'steps:', '  - action: do', '    expected: see', ''].join('\n'));
  });
});
