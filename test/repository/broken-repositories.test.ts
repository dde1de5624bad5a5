import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { validateRepository } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

const CONFIG = { 'tmsync.yaml': 'project: SHOP\n' };

/**
 * Broken repositories and exactly what validate says about them: `file:line:col message (hint)`,
 * prefixed with `warning:` for warnings.
 */
const table: { name: string; files: Record<string, string>; expected: string[] }[] = [
  {
    name: 'a YAML syntax error',
    files: { ...CONFIG, 'cases/A/x.yaml': 'title: [unclosed\nsteps: 1\n' },
    expected: [
      'cases/A/x.yaml:2:1 YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ] (check the indentation and closing brackets or quotes)',
    ],
  },
  {
    name: 'a key written twice',
    files: { ...CONFIG, 'cases/A/x.yaml': 'title: a\ntitle: b\n' },
    expected: [
      'cases/A/x.yaml:2:1 YAML syntax error: Map keys must be unique (each key may appear once; remove or merge the other one)',
    ],
  },
  {
    name: 'unknown keys, with and without a close match',
    files: {
      ...CONFIG,
      'cases/A/x.yaml': 'title: T\ntilte: x\nautomationType: Automated\nfoo: 1\nsteps:\n  - action: a\n    expectd: b\n',
    },
    expected: [
      'cases/A/x.yaml:2:1 unknown key `tilte` (did you mean `title`?)',
      'cases/A/x.yaml:3:1 unknown key `automationType` (did you mean `automation_type`?)',
      'cases/A/x.yaml:4:1 unknown key `foo` (allowed keys: id, title, description, preconditions, template, type, status, priority, automation_type, owner, reviewer, labels, steps, expected_results, source, automation)',
      'cases/A/x.yaml:7:5 unknown key `expectd` (did you mean `expected`?)',
    ],
  },
  {
    name: 'malformed steps',
    files: { ...CONFIG, 'cases/A/x.yaml': 'title: T\nsteps:\n  - use: g\n    action: c\n  - just text\n  - {}\n', 'step_groups/g.yaml': 'title: G\n' },
    expected: [
      'cases/A/x.yaml:4:5 a `use:` step takes no other keys, found `action` (put `action`/`expected` in a step of their own)',
      'cases/A/x.yaml:5:5 a step must be a mapping with `action` and `expected`, or with `use`, not a text',
      'cases/A/x.yaml:6:5 missing `action`',
    ],
  },
  {
    name: 'wrong types and an empty value',
    files: { ...CONFIG, 'cases/A/x.yaml': 'title: 12\nlabels: [a, true]\nsteps: 3\ndescription:\ntemplate: step\n' },
    expected: [
      'cases/A/x.yaml:1:8 `title` must be a text, not a number (quote it: "12")',
      'cases/A/x.yaml:2:13 a `labels` item must be a text, not `true` (quote it: "true")',
      'cases/A/x.yaml:3:8 `steps` must be a list or a text, not a number',
      'cases/A/x.yaml:4:1 `description` has no value (write a value, `""` for an empty text, or remove the line)',
      'cases/A/x.yaml:5:11 `template` must be one of STEPS, TCD, not `step` (did you mean `STEPS`?)',
    ],
  },
  {
    name: 'empty titles, empty files and files that are not mappings',
    files: {
      ...CONFIG,
      'cases/A/w.yaml': 'description: no title\n',
      'cases/A/x.yaml': 'title: "  "\n',
      'cases/A/y.yaml': '',
      'cases/A/z.yaml': '- a\n',
    },
    expected: [
      'cases/A/w.yaml:1:1 missing `title` (every test case needs a title)',
      'cases/A/x.yaml:1:8 `title` must not be empty',
      'cases/A/y.yaml:1:1 the file is empty: a test case needs at least a `title`',
      'cases/A/z.yaml:1:1 a test case must be a mapping of keys (like `title: …`), not a list',
    ],
  },
  {
    name: 'a list of steps with a string expected_results, and a contradicting template',
    files: {
      ...CONFIG,
      'cases/A/x.yaml': 'title: T\nsteps:\n  - action: a\n    expected: b\nexpected_results: r\n',
      'cases/A/y.yaml': 'title: U\ntemplate: STEPS\nsteps: free text\n',
    },
    expected: [
      'cases/A/x.yaml:5:19 `expected_results` goes with `steps` written as a text (template TCD), not with a list of steps (with a list, give each step its own `expected:`; or write `steps` as a text)',
      'cases/A/y.yaml:2:11 `template: STEPS` contradicts `steps` written as a text (template TCD) (remove `template:`; the form of `steps` implies it)',
    ],
  },
  {
    name: 'use: references that name no step group',
    files: {
      ...CONFIG,
      'cases/A/x.yaml': 'title: T\nsteps:\n  - use: sign-inn\n  - use: SHOP-SG-9\n  - use: SHOP-SG-3\n  - use: sign-in\n',
      'step_groups/sign-in.yaml': 'id: SHOP-SG-3\ntitle: S\n',
    },
    expected: [
      'cases/A/x.yaml:3:5 `use: sign-inn` names no step group (did you mean `sign-in`?)',
      'cases/A/x.yaml:4:5 warning: `use: SHOP-SG-9` names no step group of this repository; the service must have it (run `tmsync pull` to bring the step group into the repository)',
    ],
  },
  {
    name: 'a step group that uses another group',
    files: { ...CONFIG, 'cases/A/a.yaml': 'title: A\n', 'step_groups/g.yaml': 'title: G\nsteps:\n  - use: other\n' },
    expected: [
      'step_groups/g.yaml:3:5 a step group cannot use another step group (copy the steps here, or `use:` both groups from the test case)',
    ],
  },
  {
    name: 'two files with the same id and two cases with one title in one folder',
    files: {
      ...CONFIG,
      'cases/A/x.yaml': 'id: SHOP-1\ntitle: T\n',
      'cases/A/y.yaml': 'id: shop-1\ntitle: U\n',
      'cases/A/z.yaml': 'title: T\n',
      'cases/B/z.yaml': 'title: T\n',
      'cases/C/a.yaml': 'id: SHOP-7\ntitle: Same\n',
      'cases/C/b.yaml': 'id: SHOP-8\ntitle: Same\n',
    },
    expected: [
      'cases/A/y.yaml:1:5 id `shop-1` is also the id of cases/A/x.yaml:1:5; two files cannot describe one test case (delete one of the files, or remove the `id` line from the copy to make it a new item)',
      'cases/A/z.yaml:1:8 a second test case in folder `A` is titled `T` like cases/A/x.yaml; items without id are matched by folder and title, so this is ambiguous (rename one of them, or give both an `id`)',
    ],
  },
  {
    name: 'duplicate step group titles, keys and ids',
    files: {
      ...CONFIG,
      'cases/A/a.yaml': 'title: A\n',
      'step_groups/a.yaml': 'id: SHOP-SG-1\ntitle: A\n',
      'step_groups/a.yml': 'title: A2\n',
      'step_groups/b.yaml': 'id: SHOP-SG-1\ntitle: B\n',
      'step_groups/c.yaml': 'title: A\n',
    },
    expected: [
      'step_groups/a.yml:1:1 step group key `a` is also the key of step_groups/a.yaml (rename one of the files; the file stem is what `use:` refers to)',
      'step_groups/b.yaml:1:5 id `SHOP-SG-1` is also the id of step_groups/a.yaml:1:5; two files cannot describe one step group (delete one of the files, or remove the `id` line from the copy to make it a new item)',
      'step_groups/c.yaml:1:8 a second step group is titled `A` like step_groups/a.yaml; items without id are matched by title, so this is ambiguous (rename one of them, or give both an `id`)',
    ],
  },
  {
    name: 'ids of the wrong shape',
    files: {
      ...CONFIG,
      'cases/A/x.yaml': 'id: SHOP-SG-2\ntitle: T\n',
      'cases/A/_folder.yaml': 'id: 12ab\n',
      'step_groups/g.yaml': 'id: SHOP-2\ntitle: G\n',
    },
    expected: [
      'cases/A/_folder.yaml:1:5 `id` `12ab` must be a folder id (a uuid) (remove the line to create a new item; apply writes the id back)',
      'cases/A/x.yaml:1:5 `id` `SHOP-SG-2` must be a test case human id like SHOP-12 or a uuid (remove the line to create a new item; apply writes the id back)',
      'step_groups/g.yaml:1:5 `id` `SHOP-2` must be a step group human id like SHOP-SG-3 or a uuid (remove the line to create a new item; apply writes the id back)',
    ],
  },
  {
    name: 'folder names the service cannot hold, scope and cases outside folders',
    files: {
      'tmsync.yaml': 'project: SHOP\nscope: [A, B]\n',
      'cases/A/ bad/x.yaml': 'title: T\n',
      'cases/A/tab/_folder.yaml': 'name: "x\\ty"\n',
      'cases/A/long/_folder.yaml': `name: ${'n'.repeat(256)}\n`,
      'cases/A/slash/_folder.yaml': 'name: a/b\n',
      'cases/A/one/_folder.yaml': 'name: Same\n',
      'cases/A/two/_folder.yaml': 'name: Same\n',
      'cases/BB/_folder.yaml': 'name: B\n',
      'cases/BB/x.yaml': 'title: T\n',
      'cases/Legacy/x.yaml': 'title: T\n',
      'cases/Legacy/Sub/y.yaml': 'title: T\n',
      'cases/root.yaml': 'title: R\n',
    },
    expected: [
      'cases/A/ bad:1:1 a folder name must not start or end with spaces: directory ` bad` (rename the directory, or give the name in cases/A/ bad/_folder.yaml as `name:`)',
      'cases/A/long/_folder.yaml:1:7 a folder name must be at most 255 characters (this one has 256): `' + 'n'.repeat(80) + '`',
      'cases/A/tab/_folder.yaml:1:7 a folder name must not contain control characters: `x\ty`',
      'cases/A/two/_folder.yaml:1:7 two folders named `Same` in the same parent: cases/A/one and cases/A/two (rename one; tmsync matches folders by parent and name)',
      'cases/Legacy/x.yaml:1:1 warning: folder `Legacy` (cases/Legacy) is outside `scope` (A, B): its 2 test case files are not managed (add `Legacy` to `scope` in tmsync.yaml to manage it)',
      'cases/root.yaml:1:1 a test case directly in `cases` has no folder; the service keeps every case in a folder (move it into a directory under cases/)',
    ],
  },
  {
    name: 'a tmsync.yaml with an API key, a typo and bad values',
    files: {
      'tmsync.yaml':
        'project: SHOP\napi_key: sekrit-value\nrate_limt: 3\nconcurrency: 0\nrequest_timeout: 3x\nprofiles:\n  staging: { base_url: x, api_key: other-sekrit, api_key_env: 1BAD }\n',
    },
    expected: [
      'tmsync.yaml:2:1 `api_key` is not allowed in tmsync.yaml: API keys come only from the environment (remove it, and rotate the key if the file was ever committed; tmsync reads the key from TMSYNC_API_KEY or from the variable a profile names in `api_key_env`)',
      'tmsync.yaml:3:1 unknown key `rate_limt` (did you mean `rate_limit`?)',
      'tmsync.yaml:4:14 `concurrency` must be greater than 0',
      'tmsync.yaml:5:18 `request_timeout` must be a duration like 30s, 2m, 1h30m or 500ms (a bare number is seconds)',
      'tmsync.yaml:7:27 `api_key` is not allowed in tmsync.yaml: API keys come only from the environment (remove it, and rotate the key if the file was ever committed; tmsync reads the key from TMSYNC_API_KEY or from the variable a profile names in `api_key_env`)',
      'tmsync.yaml:7:63 `api_key_env` must be the name of an environment variable',
    ],
  },
  {
    name: 'a missing cases directory',
    files: { 'tmsync.yaml': 'project: SHOP\ncases_dir: tests\n' },
    expected: ['tests:1:1 the cases directory `tests` does not exist (create it with one directory per folder, or set `cases_dir` in tmsync.yaml)'],
  },
];

describe('validateRepository on broken repositories', () => {
  for (const row of table) {
    it(`reports ${row.name} with exact messages and positions`, async () => {
      const dir = await makeRepo(row.files);
      const { problems } = await validateRepository(dir);
      const lines = problems.map((p) =>
        formatProblem(p.severity === 'warning' ? { ...p, message: `warning: ${p.message}` } : p),
      );
      expect(lines).toEqual(row.expected);
    });
  }

  it('never echoes the value of an api_key in any problem', async () => {
    const dir = await makeRepo({ 'tmsync.yaml': 'api_key: sekrit-value-123\nprofiles:\n  p: { api_key: sekrit-value-456 }\n' });
    const { problems } = await validateRepository(dir);
    expect(problems.map((p) => p.code)).toEqual(['api_key_in_config', 'api_key_in_config']);
    expect(JSON.stringify(problems)).not.toMatch(/sekrit/);
  });

  it('reports every problem of every file in one run rather than stopping at the first file', async () => {
    const files: Record<string, string> = { ...CONFIG };
    for (let i = 0; i < 20; i++) files[`cases/F${i % 4}/c${i}.yaml`] = `title: T${i}\nbogus${i}: 1\n`;
    const dir = await makeRepo(files);
    const { problems } = await validateRepository(dir);
    expect(problems).toHaveLength(20);
    expect(new Set(problems.map((p) => p.file)).size).toBe(20);
  });
});
