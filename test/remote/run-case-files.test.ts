import type { FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { endpoint } from '../../src/api/index.js';
import { encodeBody, type RunCaseFilePart } from '../../src/remote/encode.js';

const ep = endpoint('updateRunCases');
const rows = { test_run_cases: [{ test_case_id: 'c1', test_run_status_id: 's' }, { test_case_id: 'c2', test_run_status_id: 's' }] };

function part(name: string, bytes: string | undefined, reads: string[]): RunCaseFilePart {
  return {
    part: name,
    fileName: `${name}.png`,
    mediaType: 'image/png',
    read() {
      reads.push(name);
      return bytes === undefined ? undefined : Buffer.from(bytes);
    },
  };
}

describe('run-case updates with files', () => {
  it('go as multipart even where plain updates go as JSON: `data` without the files, then one file part each', async () => {
    const reads: string[] = [];
    const { body, contentType } = encodeBody(ep, { ...rows, files: [part('attachments_1_0', 'B', reads)] }, false);
    expect(contentType).toBeUndefined();
    const form = body as FormData;
    expect(JSON.parse(form.get('data') as string)).toEqual(rows);
    const file = form.get('attachments_1_0') as File;
    expect(file.name).toBe('attachments_1_0.png');
    expect(file.type).toBe('image/png');
    expect(await file.text()).toBe('B');
  });

  it('read their files each time the body is built, so a retried attempt carries the same parts; an unreadable file is left out', () => {
    const reads: string[] = [];
    const files = [part('attachments_0_0', 'A', reads), part('attachments_0_1', undefined, reads)];
    const first = encodeBody(ep, { ...rows, files }, false).body as FormData;
    const again = encodeBody(ep, { ...rows, files }, false).body as FormData;
    expect(reads).toEqual(['attachments_0_0', 'attachments_0_1', 'attachments_0_0', 'attachments_0_1']);
    for (const form of [first, again]) expect([...form.keys()]).toEqual(['data', 'attachments_0_0']);
  });

  it('without files, keep the encoding chosen: JSON, or multipart with only `data`', () => {
    const json = encodeBody(ep, { ...rows, files: [] }, false);
    expect(json.contentType).toBe('application/json');
    expect(JSON.parse(json.body as string)).toEqual(rows);
    const multipart = encodeBody(ep, rows, true).body as FormData;
    expect([...multipart.keys()]).toEqual(['data']);
  });
});
