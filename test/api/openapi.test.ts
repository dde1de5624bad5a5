import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/api/endpoints.js';
import { buildOpenApi } from '../../src/api/openapi.js';

describe('openapi document', () => {
  it('matches the checked-in schemas/openapi.json (run npm run schemas after changing src/api)', () => {
    const checkedIn = JSON.parse(readFileSync(new URL('../../schemas/openapi.json', import.meta.url), 'utf8'));
    const fresh = JSON.parse(JSON.stringify(buildOpenApi()));
    expect(checkedIn, 'schemas/openapi.json drifted from src/api: run npm run schemas').toEqual(fresh);
  });

  it('is OpenAPI 3.1 with one operation per endpoint, every $ref resolving to a component', () => {
    const doc = buildOpenApi() as any;
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.values(doc.paths).flatMap((p: any) => Object.entries(p).filter(([k]) => k !== 'servers').map(([, op]) => (op as any).operationId));
    expect(ops.sort()).toEqual(endpoints.map((e) => e.name).sort());
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(doc.components.schemas).toHaveProperty(r.split('/').pop()!.replace('"', ''));
  });
});
