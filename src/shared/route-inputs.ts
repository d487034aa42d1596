// The inputs of a route table's handler (the admin API's, src/admin/route-table.ts,
// and the console's, src/console/route-table.ts): what its path, query and
// body schemas give, typed from them.
import type { z } from 'zod';

/** A schema, or none. */
export type Schema = z.ZodType | undefined;

/** What a schema gives; undefined for none. */
export type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** A handler's input, typed from its route's schemas. */
export interface Inputs<P extends Schema, Q extends Schema, B extends Schema> {
  readonly params: Out<P>;
  readonly query: Out<Q>;
  readonly body: Out<B>;
}

/** The input of a route in a table, whatever its schemas. */
export interface AnyInputs {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}
