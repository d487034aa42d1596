import type { Compilable, CompiledQuery } from 'kysely';

// Building and compiling a Kysely query costs more than running it on SQLite,
// so hot queries are compiled once with marker values in place of their
// parameters, and each call only swaps in the real values.
const MARKER = '\u0000store-parameter:';

export type ParameterValue = string | number | null;

export type BoundQuery<Names extends string, Row> = (
  values: Readonly<Record<Names, ParameterValue>>,
) => CompiledQuery<Row>;

/**
 * Compiles `build` once. `build` receives one marker per name and must use
 * each of them as a plain value (not inside an expression that transforms it).
 */
export function prepareQuery<const Names extends readonly string[], Row>(
  names: Names,
  build: (parameters: Readonly<Record<Names[number], string>>) => Compilable<Row>,
): BoundQuery<Names[number], Row> {
  const markers = {} as Record<Names[number], string>;
  for (const name of names as readonly Names[number][]) markers[name] = MARKER + name;

  const compiled = build(markers).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(MARKER) ? (value.slice(MARKER.length) as Names[number]) : null,
  );
  for (const name of names) {
    if (!slots.includes(name)) throw new Error(`Prepared query does not use parameter "${name}": ${compiled.sql}`);
  }
  const constants = compiled.parameters;

  return (values) => ({
    ...compiled,
    parameters: slots.map((slot, index) => (slot === null ? constants[index] : values[slot])),
  });
}
