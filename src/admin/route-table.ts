// One entry per admin route: method, path, the schemas of its inputs and
// answers, and what it does. The Express router and the OpenAPI document
// are both built from these entries.
import type { z } from 'zod';
import type { AnyInputs, Inputs, Schema } from '../shared/route-inputs';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  readonly status: number;
  /** Written as JSON; left out: no body. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: z.ZodType;
}

interface RouteShape<P, Q, B, Input> {
  readonly method: Method;
  /** OpenAPI form: `/students/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /** Answers besides the errors every route may give (400, 401, 503). */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly handle: (input: Input) => Promise<Reply>;
}

/** A route as written: the handler's input typed from the schemas. */
export type RouteSpec<P extends Schema, Q extends Schema, B extends Schema> = RouteShape<P, Q, B, Inputs<P, Q, B>>;

/** A route in the table, whatever its schemas. */
export type AdminRoute = RouteShape<z.ZodType, z.ZodType, z.ZodType, AnyInputs>;

/** Types the handler's input from the schemas; the router validates before calling it. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): AdminRoute {
  // The router calls handle only with the input its schemas have parsed
  // (router.ts), so the input has their output types.
  return { ...spec, handle: (input) => spec.handle(input as Parameters<typeof spec.handle>[0]) };
}
