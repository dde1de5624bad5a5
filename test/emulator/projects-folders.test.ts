import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { conforms, folder, isError, start, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
beforeAll(async () => ({ emu, http } = await start()));
afterAll(() => emu.close());

describe('projects', () => {
  it('lists the seeded Demo project in the envelope with page_info', async () => {
    const r = await http.get('/projects');
    expect(r.status).toBe(200);
    conforms('listProjects', r.body);
    expect(r.body.message).toBe('');
    expect(r.body.data.projects.map((p: any) => p.human_id_prefix)).toContain('DEMO');
    expect(r.body.page_info).toMatchObject({ page_size: 20, next: '', prev: '' });
  });

  it('creates, reads, updates and deletes a project, with Unix-second timestamps', async () => {
    const c = await http.post('/projects', { name: 'Shop', description: 'web shop', human_id_prefix: 'SHOP' });
    expect(c.status).toBe(200);
    conforms('createProject', c.body);
    const p = c.body.data.project;
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.created_at).toBeLessThan(10_000_000_000);
    const g = await http.get(`/projects/${p.id}`);
    conforms('getProject', g.body);
    expect(g.body.data.project).toEqual(p);
    const u = await http.put(`/projects/${p.id}`, { description: 'changed' });
    expect(u.body.data.project).toMatchObject({ name: 'Shop', description: 'changed', human_id_prefix: 'SHOP' });
    const d = await http.del(`/projects/${p.id}`);
    expect(d.status).toBe(200);
    isError(await http.get(`/projects/${p.id}`), 404);
  });

  it('filters the list with name__NEQ and name__CONTAINS', async () => {
    await http.post('/projects', { name: 'Alpha one', human_id_prefix: 'ALPHA' });
    await http.post('/projects', { name: 'Beta', human_id_prefix: 'BETA' });
    const neq = await http.get('/projects?name__NEQ=Demo');
    expect(neq.body.data.projects.map((p: any) => p.name)).not.toContain('Demo');
    const contains = await http.get('/projects?name__CONTAINS=alpha');
    expect(contains.body.data.projects.map((p: any) => p.name)).toEqual(['Alpha one']);
  });

  it('refuses a taken prefix and a malformed one with 422 naming human_id_prefix', async () => {
    const taken = await http.post('/projects', { name: 'Again', human_id_prefix: 'DEMO' });
    isError(taken, 422);
    expect(taken.body.errors.details[0].field).toBe('human_id_prefix');
    const bad = await http.post('/projects', { name: 'Bad', human_id_prefix: 'lower' });
    isError(bad, 422);
    expect(bad.body.errors.details[0].field).toBe('human_id_prefix');
  });
});

describe('folders', () => {
  it('creates folders at the top level with order as the index at the end', async () => {
    const a = await http.post('/projects/DEMO/folders', { name: 'Top A' });
    expect(a.status).toBe(201);
    conforms('createFolder', a.body);
    const b = await http.post('/projects/DEMO/folders', { name: 'Top B' });
    expect(a.body.data.folder).toMatchObject({ parent_folder_id: '', children: [] });
    expect(b.body.data.folder.order).toBe(a.body.data.folder.order + 1);
  });

  it('moves a folder under another, returns its order within the new parent, and shows it in the parent\'s children', async () => {
    const parent = await folder(http, 'Parent');
    const c1 = await folder(http, 'Child 1');
    const c2 = await folder(http, 'Child 2');
    const m1 = await http.post(`/projects/DEMO/folders/${c1}/move`, { parent_folder_id: parent });
    expect(m1.status).toBe(200);
    conforms('moveFolder', m1.body);
    expect(m1.body.data.folder).toMatchObject({ parent_folder_id: parent, order: 0 });
    const m2 = await http.post(`/projects/DEMO/folders/${c2}/move`, { parent_folder_id: parent });
    expect(m2.body.data.folder.order).toBe(1);
    const g = await http.get(`/projects/DEMO/folders/${parent}`);
    conforms('getFolder', g.body);
    expect(g.body.data.folder.children.map((f: any) => f.name)).toEqual(['Child 1', 'Child 2']);
    // back to the top level with an empty parent
    const up = await http.post(`/projects/DEMO/folders/${c1}/move`, { parent_folder_id: '' });
    expect(up.body.data.folder.parent_folder_id).toBe('');
    const again = await http.get(`/projects/DEMO/folders/${parent}`);
    expect(again.body.data.folder.children.map((f: any) => [f.name, f.order])).toEqual([['Child 2', 0]]);
  });

  it('refuses to move a folder under itself or a descendant with 422 naming parent_folder_id', async () => {
    const a = await folder(http, 'Loop A');
    const b = await folder(http, 'Loop B');
    await http.post(`/projects/DEMO/folders/${b}/move`, { parent_folder_id: a });
    for (const target of [a, b]) {
      const r = await http.post(`/projects/DEMO/folders/${a}/move`, { parent_folder_id: target });
      isError(r, 422);
      expect(r.body.errors.details[0].field).toBe('parent_folder_id');
    }
    const unknown = await http.post(`/projects/DEMO/folders/${a}/move`, { parent_folder_id: 'nope' });
    isError(unknown, 422);
  });

  it('renames and reorders a folder, keeping sibling orders dense', async () => {
    const p = await folder(http, 'Order parent');
    const ids = [];
    for (const n of ['x', 'y', 'z']) {
      const id = await folder(http, n);
      await http.post(`/projects/DEMO/folders/${id}/move`, { parent_folder_id: p });
      ids.push(id);
    }
    const u = await http.put(`/projects/DEMO/folders/${ids[2]}`, { name: 'z2', order: 0 });
    expect(u.status).toBe(200);
    conforms('updateFolder', u.body);
    expect(u.body.data.folder).toMatchObject({ name: 'z2', order: 0 });
    const g = await http.get(`/projects/DEMO/folders/${p}`);
    expect(g.body.data.folder.children.map((f: any) => [f.name, f.order])).toEqual([['z2', 0], ['x', 1], ['y', 2]]);
    const nameOnly = await http.put(`/projects/DEMO/folders/${ids[0]}`, { name: 'x2' });
    expect(nameOnly.body.data.folder).toMatchObject({ name: 'x2', order: 1 });
    const unset = await http.put(`/projects/DEMO/folders/${ids[0]}`, { order: -1 });
    expect(unset.body.data.folder).toMatchObject({ name: 'x2', order: 1 });
    const last = await http.put(`/projects/DEMO/folders/${ids[2]}`, { order: 99 });
    expect(last.body.data.folder.order).toBe(2);
  });

  it('lists folders flat with empty children and a parent id', async () => {
    const r = await http.get('/projects/DEMO/folders?page_size=100');
    conforms('listFolders', r.body);
    expect(r.body.data.folders.every((f: any) => Array.isArray(f.children) && f.children.length === 0)).toBe(true);
    expect(r.body.data.folders.some((f: any) => f.parent_folder_id !== '')).toBe(true);
  });

  it('refuses to delete a non-empty folder with 409 and a message, and deletes an empty one', async () => {
    const p = await folder(http, 'Full');
    const c = await folder(http, 'Inner');
    await http.post(`/projects/DEMO/folders/${c}/move`, { parent_folder_id: p });
    const refused = await http.del(`/projects/DEMO/folders/${p}`);
    isError(refused, 409);
    expect(refused.body.message).toMatch(/not empty/);
    expect((await http.del(`/projects/DEMO/folders/${c}`)).status).toBe(200);
    expect((await http.del(`/projects/DEMO/folders/${p}`)).status).toBe(200);
    isError(await http.get(`/projects/DEMO/folders/${p}`), 404);
  });

  it('answers 404 for a folder of an unknown project', async () => {
    isError(await http.get('/projects/NOPE/folders'), 404);
  });
});
