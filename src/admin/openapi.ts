// The OpenAPI 3.1 document of the admin API, generated from the route table
// and its zod schemas (OpenAPI 3.1 schemas are JSON Schema 2020-12, which is
// what zod writes). Named schemas (`.meta({ id })`) become components.
import { z } from 'zod';
import type { AdminRoute, ResponseSpec } from './route-table';
import { ErrorBody } from './schemas';

type Json = Record<string, unknown>;

const COMMON_ERRORS: Readonly<Record<number, ResponseSpec>> = {
  400: { description: 'The request is not valid (details name each problem)', schema: ErrorBody },
  401: { description: 'No bearer token, or not the admin token', schema: ErrorBody },
  503: { description: 'The data store is unavailable; try again', schema: ErrorBody },
};

export function openApiDocument(routes: readonly AdminRoute[], basePath: string): Json {
  const components: Json = {};
  const schemaOf = (schema: z.ZodType): Json => {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Json;
    delete json.$defs;
    for (const [name, def] of Object.entries(defs)) components[name] = toComponentRefs(def);
    return toComponentRefs(json) as Json;
  };
  const parameters = (schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] => {
    if (schema === undefined) return [];
    const json = schemaOf(schema);
    const required = new Set((json.required ?? []) as string[]);
    return Object.entries((json.properties ?? {}) as Record<string, Json>).map(([name, property]) => {
      const { description, ...rest } = property;
      return {
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description === undefined ? {} : { description }),
        schema: rest,
      };
    });
  };
  const response = (spec: ResponseSpec): Json => ({
    description: spec.description,
    ...(spec.schema === undefined ? {} : { content: { 'application/json': { schema: schemaOf(spec.schema) } } }),
  });

  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const responses: Json = {};
    for (const [status, spec] of Object.entries({ ...COMMON_ERRORS, ...route.responses }))
      responses[status] = response(spec);
    (paths[route.path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      tags: [route.tag],
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      ...(route.body === undefined
        ? {}
        : { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } } }),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Student Notification Service: admin API',
      version: '1',
      description:
        "Load and correct schools, students, devices, notes and absences record by record, set a school's delivery-event subscription, watch and re-drive the outbox, and read the audit trail. " +
        'Every route needs "Authorization: Bearer <ADMIN_TOKEN>". Lists page with limit and offset; a page stops at limit items or about 1 MiB, and nextOffset is where the next one starts.',
    },
    servers: [{ url: basePath }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string'
        ? inner.replace('#/$defs/', '#/components/schemas/')
        : toComponentRefs(inner);
  }
  return out;
}
