import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setYamlFields } from '../../src/repository/index.js';

describe('writing an id back into a file saved on Windows', () => {
  it('keeps its byte-order mark, its CRLF line endings and its comment', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tmsync-bom-')), 'a.yaml');
    await writeFile(file, '\uFEFF# comment\r\ntitle: T\r\nsteps:\r\n  - action: a\r\n    expected: b\r\n');
    await setYamlFields(file, { id: 'DEMO-1' });
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(text).toContain('# comment\r\n');
    expect(text).toMatch(/id: DEMO-1\r\ntitle: T\r\n/);
  });
});
