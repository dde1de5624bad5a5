import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { isError, start, type Api } from './helpers.js';

/** The emulator's reading of request bodies: multipart limits, declared charsets, invalid UTF-8. */
let emu: RunningEmulator;
let http: Api;
beforeAll(async () => {
  ({ emu, http } = await start());
});
afterAll(() => emu.close());

const raw = (method: string, path: string, body: Uint8Array | string | FormData, contentType?: string) =>
  http.call(method, path, undefined, { raw: body, headers: contentType ? { 'content-type': contentType } : {} });

describe('a multipart body with too many parts', () => {
  it('is refused with 413 saying there are too many parts (not that the body is too large), on both multipart routes', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Parts' })).body.data.test_run;
    const fields = new FormData();
    fields.append('data', JSON.stringify({ test_run_cases: [] }));
    for (let i = 0; i < 120; i++) fields.append(`extra${i}`, 'x');
    const files = new FormData();
    for (let i = 0; i < 12; i++) files.append('junit_xml', new Blob(['<testsuite/>']), `r${i}.xml`);
    for (const [method, path, body] of [
      ['PUT', `/projects/DEMO/test_runs/${run.id}/test_cases`, fields],
      ['POST', `/projects/DEMO/junit-import/test-run/${run.id}`, fields],
      ['POST', `/projects/DEMO/junit-import/test-run/${run.id}`, files],
    ] as const) {
      const r = await raw(method, path, body);
      isError(r, 413);
      expect(r.body.message, `${method} ${path}`).toMatch(/too many (parts|files)/i);
      expect(r.body.message).not.toMatch(/too large/i);
    }
  });
});

describe('a JSON body with a declared charset', () => {
  it('is decoded in the charset it declares (ISO-8859-1 here), so the stored text is what was meant', async () => {
    const latin1 = Buffer.from(JSON.stringify({ name: 'Café über', human_id_prefix: 'LATIN' }), 'latin1');
    const r = await raw('POST', '/projects', latin1, 'application/json; charset=ISO-8859-1');
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.project.name).toBe('Café über');
    expect((await http.get('/projects/LATIN')).body.data.project.name).toBe('Café über');
  });

  it('refuses a charset it does not know with 415 naming it', async () => {
    const r = await raw('POST', '/projects', JSON.stringify({ name: 'x', human_id_prefix: 'NOPE' }), 'application/json; charset=klingon-8');
    isError(r, 415);
    expect(r.body.message).toContain('klingon-8');
    expect((await http.get('/projects/NOPE')).status).toBe(404);
  });

  it('accepts UTF-8 declared in any spelling, and no charset at all', async () => {
    for (const [type, prefix] of [['application/json; charset=UTF-8', 'UTFA'], ['application/json;charset="utf8"', 'UTFB'], ['application/json', 'UTFC']] as const) {
      const r = await raw('POST', '/projects', Buffer.from(JSON.stringify({ name: 'Ünïcode ✓', human_id_prefix: prefix })), type);
      expect(r.status, type).toBe(200);
      expect(r.body.data.project.name).toBe('Ünïcode ✓');
    }
  });
});

describe('a JSON body that is not valid UTF-8', () => {
  it('is refused with 400 and nothing is stored (not stored with U+FFFD)', async () => {
    const head = Buffer.from('{"name":"Caf');
    const tail = Buffer.from('","human_id_prefix":"BADUTF"}');
    for (const bad of [Buffer.from([0xe9]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff, 0xfe])]) {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain']) {
        const r = await raw('POST', '/projects', Buffer.concat([head, bad, tail]), type);
        isError(r, 400);
        expect(r.body.message).toMatch(/not valid UTF-8/);
      }
    }
    expect((await http.get('/projects/BADUTF')).status).toBe(404);
  });

  it('is refused when it breaks the charset it declares, naming the charset', async () => {
    const loneSurrogate = Buffer.from('{"name":"\uD800","human_id_prefix":"SURR"}', 'utf16le');
    const r = await raw('POST', '/projects', loneSurrogate, 'application/json; charset=utf-16le');
    isError(r, 400);
    expect(r.body.message).toMatch(/not valid UTF-16LE/i);
    const fine = await raw('POST', '/projects', Buffer.from('{"name":"Zwölf","human_id_prefix":"UTF16"}', 'utf16le'), 'application/json; charset=utf-16le');
    expect(fine.body.data.project.name).toBe('Zwölf');
  });
});
