import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findProject, runAttachments } from '../../src/emulator/db/index.js';
import { ATTACHMENT_LIMITS } from '../../src/emulator/http.js';
import { KEY, folder, isError, refs, start, testCase, type Api } from './helpers.js';

/** The run-case update's file parts `attachments_<case index>_<n>`, in both dialects. */
for (const dialect of ['document', 'live'] as const) {
  describe(`run-case attachments (${dialect})`, () => {
    let emu: RunningEmulator;
    let http: Api;
    let cases: { id: string; human_id: string }[];
    let passed: string;
    let project: string;

    beforeAll(async () => {
      ({ emu, http } = await start(dialect === 'live' ? { dialect: 'live' } : {}));
      // the live dialect takes the project's id only
      project = findProject(emu.db, 'DEMO')!.id;
      const ids = await refs(http);
      const f = await folder(http, 'Attachments');
      cases = [await testCase(http, ids, f, { title: 'One' }), await testCase(http, ids, f, { title: 'Two' })];
      const s = await http.get('/test_runs/statuses');
      passed = s.body.data.statuses.find((x: { name: string }) => x.name === 'Passed').id;
    });
    afterAll(() => emu.close());

    const newRun = async (title: string) =>
      (await http.post(`/projects/${project}/test_runs`, { title, selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: cases.map((c) => c.id) }] })).body.data.test_run as { id: string };

    const update = (runId: string, files: [string, Blob, string][], rows = cases) => {
      const form = new FormData();
      form.append('data', JSON.stringify({ test_run_cases: rows.map((c) => ({ test_case_id: c.id, test_run_status_id: passed })) }));
      for (const [part, blob, name] of files) form.append(part, blob, name);
      return http.call('PUT', `/projects/${project}/test_runs/${runId}/test_cases`, undefined, { raw: form });
    };

    it('stores each file part with the case at its index, once when the same file comes again', async () => {
      const run = await newRun('Files');
      const shot = new Blob([Buffer.from('png bytes')], { type: 'image/png' });
      const first = await update(run.id, [['attachments_1_0', shot, 'shot.png'], ['attachments_0_0', new Blob(['log'], { type: 'text/plain' }), 'run.log']]);
      expect(first.status, first.text).toBe(200);
      // a retried update: the same parts again
      expect((await update(run.id, [['attachments_1_0', shot, 'shot.png']])).status).toBe(200);
      const stored = runAttachments(emu.db, run.id);
      expect(stored.get(cases[0].id)?.map((a) => [a.file_name, a.media_type, a.size])).toEqual([['run.log', 'text/plain', 3]]);
      expect(stored.get(cases[1].id)?.map((a) => [a.file_name, a.media_type, a.size])).toEqual([['shot.png', 'image/png', 9]]);
      // the document dialect lists them with the run's cases (an extension, as web_url is); the live list names none
      const listed = (await http.get(`/projects/${project}/test_runs/${run.id}/test_cases`)).body.data;
      if (dialect === 'document') {
        const second = listed.test_cases.find((x: { id: string }) => x.id === cases[1].id);
        expect(second.attachments).toEqual([{ id: expect.any(String), file_name: 'shot.png', media_type: 'image/png', size: 9, web_url: expect.stringMatching(/\/ui\/projects\/DEMO\/runs\/DEMO-R-\d+\/attachments\/[0-9a-f-]+$/) }]);
      } else expect(JSON.stringify(listed)).not.toContain('shot.png');
    });

    it('shows an image on the run\'s page and links any other file as a download, served as bytes that are never a page', async () => {
      const run = await newRun('Files in the UI');
      const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], { type: 'image/svg+xml' });
      expect((await update(run.id, [['attachments_0_0', new Blob(['log text'], { type: 'text/plain' }), 'run.log'], ['attachments_0_1', svg, 'icon.svg'], ['attachments_1_0', new Blob(['png'], { type: 'image/png' }), 'shot.png']])).status).toBe(200);
      const humanId = (await http.get(`/projects/${project}/test_runs/${run.id}`)).body.data.test_run.human_id as string;
      const cookie = { cookie: `tmsync_ui_key=${encodeURIComponent(KEY)}` };
      const page = await (await fetch(`${emu.appUrl}/ui/projects/DEMO/runs/${humanId}`, { headers: cookie })).text();
      expect(page).toMatch(/<img class="attachment" src="[^"]+" alt="shot\.png">/);
      const links = [...page.matchAll(/<a href="([^"]+)" download="([^"]+)">/g)].map((m) => ({ href: m[1], name: m[2] }));
      expect(links.map((l) => l.name).sort()).toEqual(['icon.svg', 'run.log']);
      for (const l of links) {
        const file = await fetch(`${emu.appUrl}${l.href}`, { headers: cookie });
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe('application/octet-stream');
        expect(file.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${l.name}`);
      }
      expect((await fetch(`${emu.appUrl}${links[0].href}`)).status).toBe(401);
    });

    it('refuses (400) a file part naming a case index the update does not have, storing nothing', async () => {
      const run = await newRun('Stray');
      const r = await update(run.id, [['attachments_2_0', new Blob(['x']), 'x.png']]);
      isError(r, 400);
      expect(r.body.message).toContain('attachments_2_0');
      expect(runAttachments(emu.db, run.id).size).toBe(0);
    });

    it(`refuses (413, the service's error shape) a file over ${ATTACHMENT_LIMITS.fileBytes} bytes`, async () => {
      const run = await newRun('Too large');
      const r = await update(run.id, [['attachments_0_0', new Blob([Buffer.alloc(ATTACHMENT_LIMITS.fileBytes + 1)]), 'huge.png']]);
      isError(r, 413);
      expect(r.body.message).toContain('attachments_0_0');
      expect(runAttachments(emu.db, run.id).size).toBe(0);
    });
  });
}
