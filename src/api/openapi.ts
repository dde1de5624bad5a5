import { z } from 'zod';
import { ErrorBody, PageInfo } from './envelope.js';
import { endpoints, type Endpoint } from './endpoints.js';
import * as B from './request-schemas.js';
import * as R from './resources.js';
import { VERSION } from '../version.js';

/**
 * The OpenAPI 3.1 document of the service, generated from the endpoint table and the zod wire
 * schemas (`npm run schemas` writes it to `schemas/openapi.json`; a test fails when the checked-in
 * file drifts). Schemas describe the wire as accepted (zod `input`): response objects are open.
 */
export function buildOpenApi(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.ZodType, string>();
  const add = (schema: z.ZodType, id: string) => {
    if (ids.has(schema)) return;
    registry.add(schema, { id });
    ids.set(schema, id);
  };
  add(ErrorBody, 'ErrorBody');
  add(PageInfo, 'PageInfo');
  for (const [name, value] of [...Object.entries(R), ...Object.entries(B)]) {
    if (value instanceof z.ZodType && value.def.type === 'object') add(value, name);
  }
  for (const e of endpoints) {
    if (e.body) add(e.body, `${cap(e.name)}Body`);
    if (e.response) add(e.response, `${cap(e.name)}Response`);
  }
  const generated = z.toJSONSchema(registry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const schemas: Record<string, unknown> = {};
  for (const [id, s] of Object.entries(generated.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = s;
    schemas[id] = rest;
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    const path = e.path.replace(/:([a-z_]+)/g, '{$1}');
    const item = (paths[path] ??= e.iface === 'execution' ? { servers: [{ url: '{app_url}', variables: { app_url: { default: 'http://127.0.0.1:4010' } } }] } : {});
    item[e.method.toLowerCase()] = operation(e, ids);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Test management service (as implemented by the tmsync emulator)',
      version: VERSION,
      description:
        'Management interface under {base_url} (ends in /api/v1) and execution interface under {app_url}. ' +
        'Generated from src/api/ by `npm run schemas`; do not edit by hand.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:4010/api/v1' } } }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'the API key' } },
      schemas,
    },
  };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const ERRORS: Record<string, string> = {
  '400': 'Malformed JSON',
  '401': 'Missing or invalid API key',
  '404': 'Unknown route or id',
  '413': 'Body over 1 MiB',
  '422': 'Invalid body or query; `errors.details` lists `{field, message}`',
  '429': 'Rate limited (emulator default style; the live service answers 500 `rate limit exceeded`)',
};

function operation(e: Endpoint, ids: Map<z.ZodType, string>): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: e.name,
    summary: e.summary,
    tags: [e.iface],
    'x-source': e.source,
  };
  const params: Record<string, unknown>[] = [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (e.query) {
    const q = z.toJSONSchema(e.query, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      params.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
    }
  }
  if (params.length) op.parameters = params;
  const content: Record<string, unknown> = {};
  if (e.body) content['application/json'] = { schema: ref(ids.get(e.body)!) };
  if (e.multipart && e.body) {
    content['multipart/form-data'] = {
      schema: { type: 'object', properties: { data: { type: 'string', description: 'the JSON body as text' } }, required: ['data'] },
    };
  } else if (e.multipart) {
    content['multipart/form-data'] = {
      schema: { type: 'object', properties: { junit_xml: { type: 'string', contentMediaType: 'application/xml' } }, required: ['junit_xml'] },
    };
  }
  if (Object.keys(content).length) op.requestBody = { required: true, content };
  const ok: Record<string, unknown> = { description: 'Success' };
  if (e.response) ok.content = { 'application/json': { schema: ref(ids.get(e.response)!) } };
  else if (e.name === 'getExecutionJunit') ok.content = { 'application/xml': { schema: { type: 'string' } } };
  const responses: Record<string, unknown> = { [String(e.status)]: ok };
  for (const [code, description] of Object.entries(ERRORS)) {
    if ((code === '400' || code === '413' || code === '422') && !e.body && !e.query && !e.multipart) continue;
    responses[code] = { description, content: { 'application/json': { schema: ref('ErrorBody') } } };
  }
  op.responses = responses;
  return op;
}
