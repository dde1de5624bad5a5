import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCaseFile, parseStepGroupFile } from '../../src/repository/case-file.js';
import { parseFolderFile } from '../../src/repository/folder-file.js';
import { buildPullFiles, renderModelCase, renderModelStepGroup, type PullFile } from '../../src/pull/pull-files.js';
import { caseDocument as caseDoc, stepGroupDocument as stepGroupDoc } from '../../src/repository/documents.js';
import { buildRepositoryModel } from '../../src/pull/repository-model.js';
import { isPortableDirName, safeDirName, slugify } from '../../src/pull/naming.js';
import { F, fixtureState } from '../support/transfer-fixtures.js';

const byPath = (files: PullFile[]) => new Map(files.map((f) => [f.path, f]));
const contentOf = (f: PullFile | undefined) => {
  if (!f || f.action !== 'create') throw new Error(`expected a new file, got ${JSON.stringify(f)}`);
  return f.content;
};

describe('naming', () => {
  it('slugifies titles keeping letters of every script, lower-cased, with one dash per run of other characters', () => {
    expect(slugify('Pay with a saved card!')).toBe('pay-with-a-saved-card');
    expect(slugify('Ünïcödé — 日本語のテスト')).toBe('ünïcödé-日本語のテスト');
    expect(slugify('***')).toBe('untitled');
    expect(slugify('nul', 'case')).toBe('nul-case');
    expect([...slugify('a'.repeat(300))].length).toBe(80);
    expect(Buffer.byteLength(slugify('日'.repeat(300)))).toBeLessThanOrEqual(200);
  });

  it('cuts a long slug at 80 code points or 200 UTF-8 bytes, whichever comes first, never inside a code point', () => {
    // 66 three-byte characters are 198 bytes: a 67th would pass 200
    expect(slugify('日'.repeat(70))).toBe('日'.repeat(66));
    // four-byte characters (a surrogate pair each) count once and as 4 bytes: 50 of them are 200
    expect(slugify('𝒜'.repeat(60))).toBe('𝒜'.repeat(50));
    expect(slugify(`${'a'.repeat(79)}é${'b'.repeat(10)}`)).toBe(`${'a'.repeat(79)}é`);
    expect(slugify('ab'.repeat(40))).toBe('ab'.repeat(40));
  });

  it('accepts ordinary folder names as directory names and refuses names that are not portable', () => {
    expect(isPortableDirName('Checkout')).toBe(true);
    expect(isPortableDirName('Zahlungen äöü')).toBe(true);
    for (const bad of ['In: Out?', '.hidden', '..', ' padded', 'trailing.', 'a:b', 'CON', 'x'.repeat(300)]) {
      expect(isPortableDirName(bad), bad).toBe(false);
    }
    expect(safeDirName('In: Out?')).toBe('In-Out');
    expect(safeDirName('In/Out')).toBe('In-Out');
    expect(safeDirName('..')).toBe('folder');
    expect(safeDirName('.hidden')).toBe('hidden');
  });
});

describe('buildPullFiles', () => {
  it('lays out folders as directories, giving unportable or case-colliding names a safe directory and a name: entry', () => {
    const { files } = buildPullFiles(fixtureState());
    const m = byPath(files);
    const auth = parse(contentOf(m.get('cases/Authentication/_folder.yaml')));
    expect(auth).toEqual({ id: F['f-auth'], order: 0 });
    expect(parse(contentOf(m.get('cases/Checkout/In-Out/_folder.yaml')))).toEqual({ id: F['f-slash'], name: 'In: Out?', order: 1 });
    expect(parse(contentOf(m.get('cases/Checkout/hidden/_folder.yaml')))).toEqual({ id: F['f-dot'], name: '.hidden', order: 2 });
    expect(parse(contentOf(m.get('cases/Mixed/_folder.yaml')))).toEqual({ id: F['f-case1'], order: 2 });
    expect(parse(contentOf(m.get('cases/mixed-2/_folder.yaml')))).toEqual({ id: F['f-case2'], name: 'mixed', order: 3 });
  });

  it('names case files from their titles, unique within the directory by age, and avoids Windows device names', () => {
    const { files } = buildPullFiles(fixtureState());
    const paths = files.map((f) => f.path);
    expect(paths).toContain('cases/Authentication/valid-login.yaml');
    expect(paths).toContain('cases/Authentication/valid-login-2.yaml');
    expect(parse(contentOf(byPath(files).get('cases/Authentication/valid-login.yaml'))).id).toBe('SHOP-1');
    expect(paths).toContain('cases/Mixed/con-case.yaml');
    expect(paths).toContain('cases/Checkout/In-Out/ünïcödé-日本語のテスト-quoted-hash.yaml');
  });

  it('turns ids back into names, and keeps the id where the name would resolve to another entry', () => {
    const m = byPath(buildPullFiles(fixtureState()).files);
    const valid = parse(contentOf(m.get('cases/Authentication/valid-login.yaml')));
    expect(valid).toMatchObject({
      type: 'Functional',
      status: 'Draft',
      priority: 'Medium',
      automation_type: 'Not Automated',
      owner: 'ana@example.com',
      reviewer: 'ben@example.com',
      labels: ['smoke', 'auth'],
      description: 'Line one\nLine two',
    });
    // "smoke" names two types case-insensitively; the first one wins, so the second needs its id
    const yes = parse(contentOf(m.get('cases/Checkout/Payments/yes.yaml')));
    expect(yes.type).toBe('t-dup-b');
  });

  it('folds runs of step group steps into use: and keeps runs that no longer match as plain steps with a warning', () => {
    const { files, warnings } = buildPullFiles(fixtureState());
    const m = byPath(files);
    expect(parse(contentOf(m.get('cases/Authentication/valid-login.yaml'))).steps).toEqual([
      { use: 'log-in-as-admin' },
      { action: 'Log out' },
    ]);
    expect(parse(contentOf(m.get('cases/Checkout/hidden/twice.yaml'))).steps).toEqual([
      { use: 'log-in-as-admin' },
      { use: 'log-in-as-admin' },
    ]);
    expect(parse(contentOf(m.get('cases/Checkout/Payments/edited-group-steps.yaml'))).steps).toEqual([
      { action: 'Open /login', expected: 'changed' },
    ]);
    expect(warnings.filter((w) => w.code !== 'folder_name_twin').map((w) => w.code)).toEqual(['unfoldable_steps']);
  });

  it('says so when a folder is written under another directory name because its name differs from a sibling only by letter case', () => {
    const { files, warnings } = buildPullFiles(fixtureState());
    const twins = warnings.filter((w) => w.code === 'folder_name_twin');
    expect(twins).toHaveLength(1);
    expect(twins[0].message).toContain('"mixed"');
    expect(twins[0].message).toContain('letter case');
    expect(twins[0].message).toContain('cases/mixed-2');
    const dirs = files.filter((f) => f.path.endsWith('/_folder.yaml')).map((f) => f.path.split('/').slice(0, -1).join('/'));
    const folded = dirs.map((d) => d.normalize('NFC').toLowerCase());
    expect(new Set(folded).size).toBe(dirs.length);
  });

  it('never writes two folder directories that differ only by Unicode normalisation (NFC/NFD), and warns about the one renamed', () => {
    const state = fixtureState();
    const nfc = 'Caf\u00e9';
    const nfd = 'Cafe\u0301';
    state.folders.push(
      { id: '11111111-1111-4111-8111-111111111111', name: nfc, parentId: null, order: 10 },
      { id: '22222222-2222-4222-8222-222222222222', name: nfd, parentId: null, order: 11 },
    );
    const { files, warnings } = buildPullFiles(state);
    const dirs = files.filter((f) => f.path.endsWith('/_folder.yaml')).map((f) => f.path.split('/')[1]);
    const cafe = dirs.filter((d) => d.normalize('NFC').toLowerCase().startsWith('caf\u00e9'));
    expect(cafe).toHaveLength(2);
    expect(new Set(cafe.map((d) => d.normalize('NFC'))).size).toBe(2);
    const twin = warnings.filter((w) => w.code === 'folder_name_twin' && w.message.includes('Unicode normalisation'));
    expect(twin).toHaveLength(1);
  });

  for (const first of ['NFD', 'NFC'] as const) {
    it(`warns, naming both folders and the directory chosen, when two sibling folders differ only by NFC/NFD and the ${first} one is listed first`, () => {
      const state = fixtureState();
      const nfc = 'Caf\u00e9';
      const nfd = 'Cafe\u0301';
      const [a, b] = first === 'NFD' ? [nfd, nfc] : [nfc, nfd];
      state.folders.push(
        { id: '55555555-5555-4555-8555-555555555555', name: a, parentId: null, order: 10 },
        { id: '66666666-6666-4666-8666-666666666666', name: b, parentId: null, order: 11 },
      );
      const { files, warnings } = buildPullFiles(state);
      const folderFiles = files.filter((f) => /^cases\/Caf/.test(f.path.normalize('NFC')) && f.path.endsWith('/_folder.yaml'));
      const dirOf = (id: string) => folderFiles.find((f) => contentOf(f).includes(id))!.path.split('/')[1];
      const dirs = [dirOf('55555555'), dirOf('66666666')];
      // the second folder listed gets the other directory, whatever its own form
      expect(dirs).toEqual([nfc, `${nfc}-2`]);
      const twin = warnings.filter((w) => w.code === 'folder_name_twin' && w.message.includes('Caf'));
      expect(twin).toHaveLength(1);
      const message = twin[0].message;
      expect(message).toContain('Unicode normalisation');
      expect(message).toContain(`"${b}" (${first === 'NFD' ? 'NFC' : 'NFD'})`);
      expect(message).toContain(`"${a}" (${first})`);
      expect(message).toContain(`written to cases/${nfc}-2 with \`name: ${b}\``);
      expect(parse(contentOf(files.find((f) => f.path === `cases/${nfc}-2/_folder.yaml`)))).toMatchObject({ name: b });
    });
  }

  it('warns when two sibling folders have exactly the same name and the second is written to another directory', () => {
    const state = fixtureState();
    state.folders.push(
      { id: '77777777-7777-4777-8777-777777777777', name: 'Same', parentId: null, order: 10 },
      { id: '88888888-8888-4888-8888-888888888888', name: 'Same', parentId: null, order: 11 },
    );
    const { warnings } = buildPullFiles(state);
    const twin = warnings.filter((w) => w.code === 'folder_name_twin' && w.message.includes('"Same"'));
    expect(twin.map((w) => w.message)).toEqual([expect.stringMatching(/differ only by nothing \(the same name\).*written to cases\/Same-2 with `name: Same`/)]);
  });

  it('adopts an existing NFD directory without an id for the folder of that name in NFC, instead of writing a twin', () => {
    const state = fixtureState();
    state.folders.push({ id: '44444444-4444-4444-8444-444444444444', name: 'Caf\u00e9', parentId: null, order: 10 });
    const nfdDir = 'cases/Cafe\u0301';
    const { files, warnings } = buildPullFiles(state, {
      existing: { cases: [], stepGroups: [], folders: [{ dir: nfdDir }], paths: [nfdDir, `${nfdDir}/notes.yaml`] },
    });
    const folderFile = files.find((f) => f.path === `${nfdDir}/_folder.yaml`);
    expect(folderFile).toBeDefined();
    expect(parse(contentOf(folderFile))).toMatchObject({ id: '44444444-4444-4444-8444-444444444444', name: 'Caf\u00e9' });
    expect(files.some((f) => f.path.startsWith('cases/Caf\u00e9'))).toBe(false);
    expect(warnings.filter((w) => w.code === 'folder_name_twin' && w.message.includes('Caf'))).toEqual([]);
  });

  it('does not write a folder next to an existing NFD directory of the same name in NFC without saying so', () => {
    const state = fixtureState();
    state.folders.push({ id: '33333333-3333-4333-8333-333333333333', name: 'Caf\u00e9', parentId: null, order: 10 });
    const { files, warnings } = buildPullFiles(state, {
      existing: { cases: [], stepGroups: [], folders: [], paths: ['cases/Cafe\u0301', 'cases/Cafe\u0301/notes.yaml'] },
    });
    const written = files.find((f) => f.path.endsWith('/_folder.yaml') && (f.action === 'create' ? f.content : '').includes('33333333'));
    expect(written?.path.split('/')[1].normalize('NFC')).not.toBe('Caf\u00e9');
    expect(warnings.some((w) => w.code === 'folder_name_twin' && w.message.includes('Unicode normalisation'))).toBe(true);
  });

  it('writes step groups with unique keys and TCD cases with text steps, quoting YAML-special strings', () => {
    const m = byPath(buildPullFiles(fixtureState()).files);
    expect(parse(contentOf(m.get('step_groups/log-in-as-admin.yaml')))).toEqual({
      id: 'SHOP-SG-1',
      title: 'Log in as admin',
      description: 'Signs in.',
      labels: ['auth'],
      steps: [
        { action: 'Open /login', expected: 'The form shows' },
        { action: 'Sign in', expected: 'The dashboard shows' },
      ],
    });
    expect(m.has('step_groups/log-in-as-admin-2.yaml')).toBe(true);
    const text = contentOf(m.get('cases/Checkout/Payments/yes.yaml'));
    expect(text).toContain('title: "yes"');
    expect(parse(text)).toMatchObject({ title: 'yes', steps: 'Pay: now\n- with card', expected_results: 'null' });
  });

  it('produces files the repository loader reads back into exactly the fields the model holds', () => {
    const actual = fixtureState();
    const model = buildRepositoryModel(actual);
    const m = byPath(buildPullFiles(actual).files);
    for (const c of model.cases) {
      const { parsed, problems } = parseCaseFile(c.file, contentOf(m.get(c.file)));
      expect(problems, c.file).toEqual([]);
      const steps = parsed!.item.fields.steps?.map((s) => (s.kind === 'use' ? { kind: s.kind, use: s.use } : { kind: s.kind, action: s.action, expected: s.expected }));
      expect({ ...parsed!.item.fields, steps }, c.file).toEqual({ ...c.fields, steps: c.fields.steps });
      expect(parsed!.item.title).toBe(c.title);
      expect(parsed!.item.id).toBe(c.id);
    }
    for (const g of model.stepGroups) {
      const { parsed, problems } = parseStepGroupFile(g.file, g.key, contentOf(m.get(g.file)));
      expect(problems).toEqual([]);
      expect(parsed!.item.steps.map((s) => ({ action: s.action, expected: s.expected }))).toEqual(g.steps);
    }
    for (const f of model.folders) {
      const { parsed, problems } = parseFolderFile(f.file, contentOf(m.get(f.file)));
      expect(problems).toEqual([]);
      expect(parsed!.name ?? f.dir.split('/').pop()).toBe(f.name);
    }
  });

  it('describes each file as data exactly as the spec writer renders it, so in-place updates set the same values', () => {
    const model = buildRepositoryModel(fixtureState());
    const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    for (const c of model.cases) expect(parse(renderModelCase(c)), c.file).toEqual(defined(caseDoc(c)));
    for (const g of model.stepGroups) expect(parse(renderModelStepGroup(g)), g.file).toEqual(defined(stepGroupDoc(g)));
  });

  it('keeps the file of an item that already has one, updates it in place, and lists local items the service no longer has', () => {
    const result = buildPullFiles(fixtureState(), {
      existing: {
        cases: [
          { id: 'SHOP-2', file: 'cases/Authentication/my-own-name.yaml' },
          { id: 'SHOP-99', file: 'cases/Authentication/gone.yaml' },
          { file: 'cases/Authentication/local-draft.yaml', title: 'Valid login' },
          { id: 'c-3', file: 'cases/Authentication/moved-away.yaml' },
        ],
        stepGroups: [],
        folders: [{ id: F['f-auth'], dir: 'cases/Authentication', file: 'cases/Authentication/_folder.yaml' }],
        paths: [
          'cases/Authentication',
          'cases/Authentication/_folder.yaml',
          'cases/Authentication/my-own-name.yaml',
          'cases/Authentication/gone.yaml',
          'cases/Authentication/local-draft.yaml',
          'cases/Authentication/moved-away.yaml',
          'cases/Authentication/valid-login.yaml',
        ],
      },
    });
    const m = byPath(result.files);
    const own = m.get('cases/Authentication/my-own-name.yaml');
    expect(own?.action).toBe('update');
    // the unclaimed local draft with the same title is adopted by the oldest unmatched case
    const draft = m.get('cases/Authentication/local-draft.yaml');
    expect(draft?.action === 'update' && draft.fields.id).toBe('SHOP-1');
    // an untracked file called valid-login.yaml is never overwritten
    expect(m.has('cases/Authentication/valid-login.yaml')).toBe(false);
    const moved = m.get('cases/Checkout/Payments/yes.yaml');
    expect(moved?.action === 'update' && moved.renameFrom).toBe('cases/Authentication/moved-away.yaml');
    expect(m.get('cases/Authentication/_folder.yaml')?.action).toBe('update');
    expect(result.gone).toEqual([{ itemType: 'case', id: 'SHOP-99', file: 'cases/Authentication/gone.yaml' }]);
  });

  it('writes one folder subtree with its ancestors and only the step groups its cases use', () => {
    const result = buildPullFiles(fixtureState(), { folder: ['Checkout', 'Payments'] });
    const paths = result.files.map((f) => f.path).sort();
    expect(paths).toEqual([
      'cases/Checkout/Payments/_folder.yaml',
      'cases/Checkout/Payments/edited-group-steps.yaml',
      'cases/Checkout/Payments/yes.yaml',
      'cases/Checkout/_folder.yaml',
      'step_groups/log-in-as-admin.yaml',
    ]);
    expect(() => buildPullFiles(fixtureState(), { folder: ['Checkout', 'Nope'] })).toThrow(/no folder "Checkout\/Nope"/);
  });
});
