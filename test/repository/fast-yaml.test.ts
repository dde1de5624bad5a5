import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentSourceMap, fastParseYaml } from '../../src/repository/fast-yaml.js';
import { parseCaseFile, parseStepGroupFile, renderCaseYaml, renderStepGroupYaml } from '../../src/repository/index.js';
import { stepGroupSchema, testCaseSchema } from '../../src/repository/file-schemas.js';
import { parseYamlFile } from '../../src/repository/yaml-source.js';

fc.configureGlobal({ seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : 4242 });

/**
 * The fast read must never disagree with the exact one: whenever it answers with a valid test case
 * or step group (what the parsers keep from it), the `yaml` document reads the same file without
 * errors or warnings, to the same data, with the same positions. Answering `undefined` (leaving the
 * file to the exact read) is always allowed, and so is answering data the schemas refuse (such a
 * file is read again the exact way, which reports its problems).
 */
function agrees(text: string): boolean {
  const fast = fastParseYaml(text, ['steps']);
  if (!fast) return false;
  if (!testCaseSchema.safeParse(fast.data).success && !stepGroupSchema.safeParse(fast.data).success) return false;
  const exact = parseYamlFile('x.yaml', text, 'a file');
  expect(exact.problems, text).toEqual([]);
  expect(exact.parsed, text).toBeDefined();
  const p = exact.parsed!;
  expect(fast.data, text).toEqual(p.data);
  const map = documentSourceMap(p);
  expect(fast.map.keyLines(), text).toEqual(map.keyLines());
  for (const key of Object.keys(p.data)) expect(fast.map.keyPos(key), `${key} in\n${text}`).toEqual(map.keyPos(key));
  const steps = p.data.steps;
  if (Array.isArray(steps)) steps.forEach((_, i) => expect(fast.map.itemPos('steps', i), `step ${i} in\n${text}`).toEqual(map.itemPos('steps', i)));
  return true;
}

const TOKENS = [
  'title:', 'steps:', 'use:', 'action:', 'expected:', 'id:', 'labels:', 'description:', ' ', '  ', '    ', '\n', '\n', '\n',
  '\t', '- ', '-', '[', ']', '{', '}', ':', ': ', ',', '"', "'", '&a ', '*a', '!!str ', '!x ', '|', '|-', '|2', '>', '>+',
  '#', ' # c', '---', '...', '? ', '%YAML 1.1\n', '<<: ', '~', 'null', '12', '1_000', '0x1F', '0o17', '-1.5e3', '.inf',
  'yes', 'true', 'True', '\\u00e9', '\\', '\r\n', 'é', '🚀', 'SHOP-1', 'a b', 'x'.repeat(40), '@', '`', '%',
];
const yamlish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 50 }).map((ts) => ts.join(''));

const text = fc.string({ maxLength: 60 });
const multiline = fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', ' ', '  x', '- a', '#', 'a: b', '"q"')), { maxLength: 4 }).map((ls) => ls.join('\n'));
const anyText = fc.oneof(text, multiline, fc.constantFrom('', ' ', 'yes', 'null', '1_000', '0x1F', '~', '- x', '# c', "'", '"', ': x', 'a #b'));
const step = fc.oneof(
  fc.record({ kind: fc.constant('step' as const), action: anyText, expected: anyText }),
  fc.record({ kind: fc.constant('use' as const), use: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/) }),
);
const caseFields = fc.record(
  {
    description: anyText,
    preconditions: anyText,
    type: anyText,
    owner: anyText,
    labels: fc.array(anyText, { maxLength: 3 }),
    steps: fc.array(step, { maxLength: 4 }),
  },
  { requiredKeys: [] },
);

function mutations(yaml: string): string[] {
  return [
    yaml,
    yaml.replace(/\n/g, '\r\n'),
    yaml.replace(/^steps:\n {2}- /m, 'steps:\n- ').replace(/\n {4}/g, '\n  '),
    yaml.replace(/^(title: .*)$/m, '$1 # a comment'),
    `# a leading comment\n\n${yaml}\n# trailing\n`,
    yaml.replace(/^(\S+):/gm, '$1 :'),
  ];
}

describe('the fast read of plainly written files', () => {
  it('agrees with the yaml document on every file the writer renders, and reads most of them', () => {
    let fastCount = 0;
    let total = 0;
    fc.assert(
      fc.property(fc.option(fc.uuid(), { nil: undefined }), text, caseFields, (id, title, fields) => {
        const yaml = renderCaseYaml({ ...(id ? { id } : {}), title, fields: fields });
        total++;
        if (agrees(yaml)) fastCount++;
        for (const t of mutations(yaml)) agrees(t);
        const sg = renderStepGroupYaml({ title, steps: [{ action: 'a', expected: 'b' }], ...(fields.description !== undefined ? { description: fields.description } : {}) });
        total++;
        if (agrees(sg)) fastCount++;
      }),
      { numRuns: 400 },
    );
    expect(fastCount / total).toBeGreaterThan(0.5);
  });

  it('agrees with the yaml document on random YAML-like text whenever it answers', () => {
    fc.assert(
      fc.property(yamlish, (t) => {
        agrees(t);
        agrees(`title: T\nsteps:\n  - action: ${t}\n`);
        agrees(`title: ${t}\n`);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on every YAML file of the examples and the test fixtures', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ya?ml$/.test(name)) files.push(path);
      }
    };
    walk(join(root, 'examples'));
    walk(join(root, 'test', 'fixtures'));
    let fast = 0;
    for (const f of files) if (agrees(readFileSync(f, 'utf8').replace(/^\ufeff/, ''))) fast++;
    expect(files.length).toBeGreaterThan(5);
    expect(fast).toBeGreaterThan(0);
  });

  it('leaves to the exact read what it cannot be sure of', () => {
    for (const t of [
      '%YAML 1.1\n---\ntitle: yes\n',
      'title: T\n---\ntitle: U\n',
      'title:\tT\n',
      '"title": T\n',
      'title:\n  T\n',
      'title: &a T\nid: *a\n',
      'title: T\nsteps: [{action: a}]\n',
      'title: T\nsteps:\n  -\n    action: a\n',
      'title: T\ntitle: U\n',
      'title: [unclosed\n',
      '- a\n- b\n',
    ]) {
      expect(fastParseYaml(t, ['steps']), t).toBeUndefined();
    }
  });

  it('refuses a plain value with a sign before its decimal point (-.5) as the exact read does', () => {
    // js-yaml reads `-.5` and `+.5` as texts; YAML 1.2's core schema (the exact read) as numbers
    for (const v of ['-.5', '+.5', '-.5e3']) {
      for (const t of [`title: T\ndescription: ${v}\n`, `title: T\nsteps:\n  - action: ${v}\n`, `title: T\nlabels: [a, ${v}]\n`]) {
        agrees(t);
        const r = parseCaseFile('cases/a.yaml', t);
        expect(r.parsed, t).toBeUndefined();
        expect(r.problems.map((p) => p.message).join('\n'), t).toMatch(/must be a text, not a number/);
      }
    }
    // quoted, it is a text either way
    expect(parseCaseFile('cases/a.yaml', "title: T\ndescription: '-.5'\n").parsed!.item.fields.description).toBe('-.5');
  });

  it('leaves a binary number, or a hexadecimal or octal one with a sign, to the exact read, which reads a text', () => {
    // js-yaml reads them as numbers; YAML 1.2's core schema (the exact read) as texts
    for (const v of ['0b1010', '-0b1', '+0x1F', '-0o7']) {
      for (const t of [`title: ${v}\n`, `title: T\nsteps:\n  - action: ${v}\n`, `title: T\nlabels: [a, ${v}]\n`]) {
        expect(fastParseYaml(t), t).toBeUndefined();
        expect(agrees(t), t).toBe(false);
      }
      expect(parseCaseFile('cases/a.yaml', `title: ${v}\n`).parsed!.item.title).toBe(v);
    }
    // unsigned hexadecimal and octal are numbers to both
    expect(fastParseYaml('title: T\ndescription: 0x1F\n')?.data.description).toBe(31);
  });

  it('leaves a quoted text or flow collection that goes on past its line to the exact read (js-yaml takes lines the core schema refuses)', () => {
    for (const t of [
      'title: T\nsteps:\n  - action: "a\n  b"\n  - action: c\n',
      'title: T\nsteps:\n  - action: a\n    expected: "x\n    y"\n',
      "title: T\nsteps:\n- action: 'a\n  b'\n- action: c\n",
      'title: T\nlabels:\n  - "a\n  b"\n  - c\n',
      'title: T\nsteps:\n  - {action: a,\n  expected: b}\n',
    ]) {
      expect(fastParseYaml(t, ['steps']), t).toBeUndefined();
      agrees(t);
      expect(parseCaseFile('cases/a.yaml', t).problems.map((p) => p.code), t).toContain('yaml_syntax');
    }
    // on one line, or inside a block text, a quote is read the fast way
    expect(fastParseYaml('title: "T \\" x"\nsteps:\n  - action: \'it\'\'s\'\n    expected: |\n      "open\n      and on\n  - {action: "}", expected: b}\n', ['steps'])).toBeDefined();
  });

  it('gives parsed cases the positions and problems of the exact read', () => {
    const t = 'id: SHOP-1\ntitle: Pay\nsteps:\n  - use: login\n  - action: Open\n    expected: |\n      - not an item\n      shown\n  -   action: Pay\n';
    const r = parseCaseFile('cases/A/pay.yaml', t);
    expect(r.problems).toEqual([]);
    expect(r.parsed!.idPos).toEqual({ line: 1, col: 5 });
    expect(r.parsed!.titlePos).toEqual({ line: 2, col: 8 });
    expect(r.parsed!.item.fields.steps!.map((s) => s.source)).toEqual([
      { file: 'cases/A/pay.yaml', line: 4, col: 5 },
      { file: 'cases/A/pay.yaml', line: 5, col: 5 },
      { file: 'cases/A/pay.yaml', line: 9, col: 7 },
    ]);
    // a rule between fields is reported at the exact read's position
    const bad = parseCaseFile('cases/A/bad.yaml', 'title: T\ntemplate: TCD\nsteps:\n  - action: a\n');
    expect(bad.problems.map((p) => [p.code, p.line, p.col])).toEqual([['template_mismatch', 2, 11]]);
    const g = parseStepGroupFile('step_groups/login.yaml', 'login', 'title: Log in\nsteps:\n- action: Open\n  expected: Shown\n');
    expect(g.parsed!.item.steps[0].source).toEqual({ file: 'step_groups/login.yaml', line: 3, col: 3 });
  });
});
