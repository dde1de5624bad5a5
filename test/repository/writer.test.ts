import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TmsyncError } from '../../src/errors.js';
import {
  parseCaseFile,
  renderCaseYaml,
  renderFolderYaml,
  renderStepGroupYaml,
  schemaComment,
  setYamlFields,
  writeFileAtomic,
} from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

const COMMENTED = `# yaml-language-server: $schema=../../.tmsync-schemas/test-case.schema.json
# Owned by the payments team.
title: Pay with a saved card   # keep it short
# the steps below mirror the manual script
steps:
  - use: login-as-admin        # shared
  - action: Open the checkout page
    expected: The saved card is preselected
# labels drive the smoke suite
labels: [smoke, payments] # two labels
`;

describe('setYamlFields', () => {
  it('puts a new id line first and keeps every comment and the rest of the file as written', async () => {
    const dir = await makeRepo({ 'case.yaml': COMMENTED });
    const file = join(dir, 'case.yaml');
    await setYamlFields(file, { id: 'SHOP-12' });
    const out = await readFile(file, 'utf8');
    const comments = COMMENTED.split('\n').flatMap((l) => (l.includes('#') ? [l.slice(l.indexOf('#'))] : []));
    for (const c of comments) expect(out).toContain(c);
    expect(out.split('\n').find((l) => !l.startsWith('#'))).toBe('id: SHOP-12');
    expect(out.split('\n')[0]).toBe('# yaml-language-server: $schema=../../.tmsync-schemas/test-case.schema.json');
    expect(out).toBe(`# yaml-language-server: $schema=../../.tmsync-schemas/test-case.schema.json
# Owned by the payments team.
id: SHOP-12
title: Pay with a saved card # keep it short
# the steps below mirror the manual script
steps:
  - use: login-as-admin # shared
  - action: Open the checkout page
    expected: The saved card is preselected
# labels drive the smoke suite
labels: [smoke, payments] # two labels
`);
    const { parsed } = parseCaseFile('case.yaml', out);
    expect(parsed?.item.id).toBe('SHOP-12');
  });

  it('replaces an existing key in place, keeping its trailing comment, and removes keys set to undefined', async () => {
    const dir = await makeRepo({ 'case.yaml': COMMENTED });
    const file = join(dir, 'case.yaml');
    await setYamlFields(file, { title: 'Pay with a stored card', labels: ['smoke'], steps: undefined });
    const out = await readFile(file, 'utf8');
    expect(out).toContain('title: Pay with a stored card # keep it short\n');
    expect(out).toContain('labels: [smoke] # two labels\n');
    expect(out).not.toContain('steps:');
    expect(Object.keys(parse(out) as object)).toEqual(['title', 'labels']);
  });

  it('changes only the lines of the keys it sets: the other keys keep their exact text, spacing before comments and blank lines included', async () => {
    const text = COMMENTED.replace('title: Pay with a saved card   # keep it short', "title: 'Pay with a saved card'     # keep it short\n\n");
    const dir = await makeRepo({ 'case.yaml': text });
    const file = join(dir, 'case.yaml');
    await setYamlFields(file, { labels: ['smoke'] });
    expect(await readFile(file, 'utf8')).toBe(text.replace('labels: [smoke, payments] # two labels', 'labels: [smoke] # two labels'));
    // in Windows line endings too; the key set is written in the library's layout (one blank line after it)
    await writeFile(file, text.replace(/\n/g, '\r\n'));
    await setYamlFields(file, { title: 'Pay' });
    expect(await readFile(file, 'utf8')).toBe(text.replace("title: 'Pay with a saved card'     # keep it short\n\n", "title: 'Pay' # keep it short\n").replace(/\n/g, '\r\n'));
  });

  it('places new keys by the given canonical order next to the existing keys, keeping comments where they were', async () => {
    const dir = await makeRepo({ 'case.yaml': '# top note\ntitle: T\n# about the steps\nsteps:\n  - action: A\n' });
    const file = join(dir, 'case.yaml');
    const order = ['id', 'title', 'description', 'priority', 'labels', 'steps', 'expected_results'];
    await setYamlFields(file, { labels: ['smoke'], description: 'D', id: 'SHOP-3', expected_results: 'E', custom: 1 }, { order });
    const out = await readFile(file, 'utf8');
    expect(Object.keys(parse(out) as object)).toEqual(['id', 'title', 'description', 'labels', 'steps', 'expected_results', 'custom']);
    expect(out).toBe('# top note\nid: SHOP-3\ntitle: T\ndescription: D\nlabels:\n  - smoke\n# about the steps\nsteps:\n  - action: A\nexpected_results: E\ncustom: 1\n');
  });

  it('keeps CRLF line endings of a file written on Windows', async () => {
    const dir = await makeRepo({ 'case.yaml': '# note\r\ntitle: T\r\n' });
    const file = join(dir, 'case.yaml');
    await setYamlFields(file, { id: 'SHOP-1' });
    expect(await readFile(file, 'utf8')).toBe('# note\r\nid: SHOP-1\r\ntitle: T\r\n');
  });

  it('creates a missing file, with the schema comment on its first line', async () => {
    const dir = await makeRepo({});
    const file = join(dir, 'cases', 'A', '_folder.yaml');
    await setYamlFields(file, { id: '0f8fad5b-d9cb-469f-a165-70867728950e', name: 'A' }, {
      schemaComment: schemaComment('folder', 'cases/A/_folder.yaml'),
    });
    const out = await readFile(file, 'utf8');
    expect(out.split('\n')[0]).toBe('# yaml-language-server: $schema=../../.tmsync-schemas/folder.schema.json');
    expect(parse(out)).toEqual({ id: '0f8fad5b-d9cb-469f-a165-70867728950e', name: 'A' });
  });

  it('refuses to rewrite a file whose YAML does not parse, leaving it untouched', async () => {
    const dir = await makeRepo({ 'bad.yaml': 'title: [\n' });
    const file = join(dir, 'bad.yaml');
    const err = await setYamlFields(file, { id: 'SHOP-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmsyncError);
    expect((err as TmsyncError).code).toBe('invalid_yaml');
    expect(await readFile(file, 'utf8')).toBe('title: [\n');
  });
});

describe('writeFileAtomic', () => {
  it('replaces the content and leaves no temporary file behind', async () => {
    const dir = await makeRepo({ 'a.yaml': 'old\n' });
    await writeFileAtomic(join(dir, 'a.yaml'), 'new\n');
    await writeFileAtomic(join(dir, 'sub', 'b.yaml'), 'b\n');
    expect(await readFile(join(dir, 'a.yaml'), 'utf8')).toBe('new\n');
    expect(await readFile(join(dir, 'sub', 'b.yaml'), 'utf8')).toBe('b\n');
    expect((await readdir(dir)).sort()).toEqual(['a.yaml', 'sub']);
  });
});

describe('render', () => {
  it('writes a case in the documented key order, with block literals and quoted special strings', () => {
    const text = renderCaseYaml({
      id: 'SHOP-12',
      title: 'yes',
      fields: {
        expectedResults: undefined,
        labels: ['smoke', 'null'],
        reviewer: 'ben@example.com',
        owner: 'ana@example.com',
        automationType: 'Automated',
        priority: 'High',
        status: 'Ready',
        type: 'Functional',
        template: 'STEPS',
        preconditions: '# not a comment',
        description: 'line one\nline two\n',
        steps: [
          { kind: 'use', use: 'login-as-admin' },
          { kind: 'step', action: 'Press "Pay"', expected: 'The order: confirmed' },
          { kind: 'step', action: 'Wait', expected: '' },
        ],
      },
    });
    expect(text).toBe(`id: SHOP-12
title: "yes"
description: |
  line one
  line two
preconditions: "# not a comment"
type: Functional
status: Ready
priority: High
automation_type: Automated
owner: ana@example.com
reviewer: ben@example.com
labels: [smoke, "null"]
steps:
  - use: login-as-admin
  - action: Press "Pay"
    expected: "The order: confirmed"
  - action: Wait
`);
  });

  it('writes template only when steps do not imply it', () => {
    expect(renderCaseYaml({ title: 'T', fields: { template: 'TCD', stepsText: 'a', expectedResults: 'b' } })).toBe(
      'title: T\nsteps: a\nexpected_results: b\n',
    );
    expect(renderCaseYaml({ title: 'T', fields: { template: 'TCD' } })).toBe('title: T\ntemplate: TCD\n');
  });

  it('writes step groups and folders with the schema comment first', () => {
    expect(
      renderStepGroupYaml(
        { id: 'SHOP-SG-3', title: 'Log in', labels: ['auth'], steps: [{ action: 'Open /login', expected: 'Form' }] },
        { schemaComment: schemaComment('step-group', 'step_groups/log-in.yaml') },
      ),
    ).toBe(
      '# yaml-language-server: $schema=../.tmsync-schemas/step-group.schema.json\n\nid: SHOP-SG-3\ntitle: Log in\nlabels: [auth]\nsteps:\n  - action: Open /login\n    expected: Form\n',
    );
    expect(renderFolderYaml({ id: '0f8fad5b-d9cb-469f-a165-70867728950e', name: 'a: b', order: 3 })).toBe(
      'id: 0f8fad5b-d9cb-469f-a165-70867728950e\nname: "a: b"\norder: 3\n',
    );
  });
});

describe('schemaComment', () => {
  it('points at the repository .tmsync-schemas directory relative to the file, as yaml-language-server resolves it', () => {
    expect(schemaComment('config', 'tmsync.yaml')).toBe('yaml-language-server: $schema=.tmsync-schemas/config.schema.json');
    expect(schemaComment('test-case', 'cases/A/B/c.yaml')).toBe(
      'yaml-language-server: $schema=../../../.tmsync-schemas/test-case.schema.json',
    );
  });
});

