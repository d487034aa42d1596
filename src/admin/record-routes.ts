// Create, read, update, delete and list for each collection of the data set,
// built from each collection's description (src/store/collections/): its
// schema, its list filters, and what its links make of a delete.
import { z } from 'zod';
import {
  COLLECTION_OF,
  COLLECTIONS,
  LINKS,
  recordKey,
  type DataSetCollection,
  type RecordDecision,
  type AdminStore,
} from '../store';
import { AdminError } from './errors';
import { pageBody } from './paging';
import { route, type AdminRoute } from './route-table';
import { ErrorBody, Paging, pageOf } from './schemas';

export const API_BASE = '/admin/api/v1';

interface CollectionSpec {
  readonly collection: DataSetCollection;
  /** Singular, for summaries: `student`. */
  readonly noun: string;
  /** The record field that is its key, also the path parameter's name. */
  readonly key: string;
  /** The collection's schema (src/store/collections/). */
  readonly record: z.ZodObject;
  /** Its list filters (the fields marked `filter`). */
  readonly filters: z.ZodObject;
  readonly tag: string;
}

const SPECS: readonly CollectionSpec[] = COLLECTIONS.map((collection) => {
  const { noun, key, schema, filters } = COLLECTION_OF[collection];
  return {
    collection,
    noun,
    key,
    record: schema,
    filters,
    tag: `${collection.charAt(0).toUpperCase()}${collection.slice(1)}`,
  };
});

const notFound = (noun: string, key: string) => new AdminError(404, 'not_found', `No ${noun} ${key}.`);
const errors = (description: string) => ({ description, schema: ErrorBody });

function location(spec: CollectionSpec, key: string): string {
  return `${API_BASE}/${spec.collection}/${encodeURIComponent(key)}`;
}

type AnyRecord = Record<string, unknown>;

function collectionRoutes(store: AdminStore, spec: CollectionSpec): AdminRoute[] {
  const { collection, noun, key, record, filters, tag } = spec;
  const base = `/${collection}`;
  const item = `/${collection}/{${key}}`;
  const params = z.strictObject({
    [key]: z
      .string()
      .min(1)
      .describe(
        key === 'baseUrl' ? 'The school base URL, URL-encoded (https%3A%2F%2Fschool.example).' : `The ${noun} id.`,
      ),
  });
  const keyOf = (p: Record<string, string>): string => p[key] ?? '';
  // PUT may repeat the key in the body; PATCH may not change it.
  const keyMask: Record<string, true> = { [key]: true };
  const putBody = record.partial(keyMask);
  const patchBody = record.omit(keyMask).partial();

  const change = async (pathKey: string, decide: (current: AnyRecord | null) => RecordDecision<DataSetCollection>) => {
    const result = await store.changeRecord(collection, pathKey, decide);
    if (result.status === 'refused') {
      if (result.reason === 'exists')
        throw new AdminError(
          409,
          'conflict',
          `A ${noun} ${pathKey} already exists; use PUT or PATCH ${item.replace(`{${key}}`, encodeURIComponent(pathKey))} to change it.`,
        );
      throw notFound(noun, pathKey);
    }
    return result;
  };

  return [
    route({
      method: 'get',
      path: base,
      operationId: `list_${collection}`,
      summary: `List ${collection}, in key order`,
      description:
        'A page holds at most limit records and stops once its records reach about 1 MiB of JSON: continue from nextOffset.',
      tag,
      query: Paging.extend(filters.shape),
      responses: { 200: { description: 'A page', schema: pageOf(record) } },
      async handle({ query }) {
        const { limit, offset, ...filter } = query as z.output<typeof Paging> &
          Record<string, string | boolean | undefined>;
        const page = await store.listRecords(collection, filter, { limit, offset });
        return { status: 200, body: pageBody(page.items, page.total, limit, offset) };
      },
    }),
    route({
      method: 'post',
      path: base,
      operationId: `create_${noun}`,
      summary: `Create a ${noun}`,
      tag,
      body: record,
      responses: {
        201: { description: `The ${noun} as stored`, schema: record },
        409: errors(`A ${noun} with that key exists`),
        422: errors('The store refused the record (an unknown school, a date that does not exist, ...)'),
      },
      async handle({ body }) {
        const pathKey = String((body as AnyRecord)[key]);
        const result = await change(pathKey, (current) =>
          current === null ? { write: body as never } : { refuse: 'exists' },
        );
        return { status: 201, body: result.record, headers: { Location: location(spec, pathKey) } };
      },
    }),
    route({
      method: 'get',
      path: item,
      operationId: `get_${noun}`,
      summary: `Read a ${noun}`,
      tag,
      params,
      responses: { 200: { description: `The ${noun}`, schema: record }, 404: errors(`No such ${noun}`) },
      async handle({ params: p }) {
        const found = await store.getRecord(collection, keyOf(p as Record<string, string>));
        if (found === null) throw notFound(noun, keyOf(p));
        return { status: 200, body: found };
      },
    }),
    route({
      method: 'put',
      path: item,
      operationId: `put_${noun}`,
      summary: `Create or replace a ${noun}`,
      description:
        'Fields left out keep their stored value (or take their default for a new record); null clears a field.',
      tag,
      params,
      body: putBody,
      responses: {
        200: { description: `Replaced; the ${noun} as stored`, schema: record },
        201: { description: `Created; the ${noun} as stored`, schema: record },
        422: errors('The store refused the record'),
      },
      async handle({ params: p, body }) {
        const pathKey = keyOf(p);
        const given: Record<string, unknown> = body;
        if (given[key] !== undefined && recordKey(collection, String(given[key])) !== recordKey(collection, pathKey)) {
          throw new AdminError(
            400,
            'key_mismatch',
            `The body's ${key} (${String(given[key])}) is not the one in the path (${pathKey}).`,
            [{ path: `body.${key}`, message: 'must match the path' }],
          );
        }
        const result = await change(pathKey, () => ({ write: { ...given, [key]: given[key] ?? pathKey } as never }));
        return {
          status: result.status === 'created' ? 201 : 200,
          body: result.record,
          headers: result.status === 'created' ? { Location: location(spec, pathKey) } : undefined,
        };
      },
    }),
    route({
      method: 'patch',
      path: item,
      operationId: `update_${noun}`,
      summary: `Change some fields of a ${noun}`,
      description: 'Only the fields sent change; null clears a field.',
      tag,
      params,
      body: patchBody,
      responses: {
        200: { description: `The ${noun} as stored`, schema: record },
        404: errors(`No such ${noun}`),
        422: errors('The store refused the change'),
      },
      async handle({ params: p, body }) {
        const pathKey = keyOf(p);
        const result = await change(pathKey, (current) =>
          current === null ? { refuse: 'not_found' } : { write: { ...current, ...(body as AnyRecord) } as never },
        );
        return { status: 200, body: result.record };
      },
    }),
    route({
      method: 'delete',
      path: item,
      operationId: `delete_${noun}`,
      summary: `Delete a ${noun}`,
      description: deleteNote(collection),
      tag,
      params,
      responses: { 204: { description: 'Deleted' }, 404: errors(`No such ${noun}`), 409: errors('Still in use') },
      async handle({ params: p }) {
        const pathKey = keyOf(p);
        const result = await store.deleteRecord(collection, pathKey);
        if (result === 'not_found') throw notFound(noun, pathKey);
        if (result === 'in_use')
          throw new AdminError(
            409,
            'in_use',
            `The ${noun} ${pathKey} still has ${naming(collection, 'refuse').join(' or ')}; move or delete them first.`,
          );
        return { status: 204 };
      },
    }),
  ];
}

/** The collections whose records name one of `collection` with that kind of link. */
function naming(collection: DataSetCollection, onDelete: 'refuse' | 'cascade' | 'keep'): DataSetCollection[] {
  return LINKS.filter((link) => link.to === collection && link.onDelete === onDelete).map((link) => link.from);
}

// What a delete does, from the links to the collection (src/store/collections/).
function deleteNote(collection: DataSetCollection): string {
  const { noun } = COLLECTION_OF[collection];
  const [refusing, cascading, keeping] = [
    naming(collection, 'refuse'),
    naming(collection, 'cascade'),
    naming(collection, 'keep'),
  ];
  const notes = [
    ...(refusing.length > 0 ? [`Refused (409) while ${refusing.join(' or ')} belong to the ${noun}.`] : []),
    ...(cascading.length > 0
      ? [`Also deletes the ${noun}'s ${cascading.join(' and ')}; the outbox keeps its history.`]
      : []),
    ...keeping.map(
      (c) =>
        `${c.charAt(0).toUpperCase()}${c.slice(1)} keep the ${noun} id, so registering the ${noun} again restores their notifications.`,
    ),
  ];
  return notes.length > 0 ? notes.join(' ') : 'Deletes the record.';
}

export function recordRoutes(store: AdminStore): AdminRoute[] {
  return SPECS.flatMap((spec) => collectionRoutes(store, spec));
}
