// Decides one check: what a client returned for a call against what the
// seeded data says it must return.
import type { CallSpec, StudentRecord } from './calls';
import type { DriverLine } from './driver-output';

export interface Verdict {
  readonly passed: boolean;
  /** Why it failed, or the workaround a pass needed. */
  readonly detail?: string;
}

/** The types our SOAP fault (or HTTP error) and an HTTP 401 surface as in one client and binding. */
export interface ErrorTypes {
  readonly fault: string;
  readonly unauthorized: string;
}

export function judge(call: CallSpec, line: DriverLine, types: ErrorTypes): Verdict {
  const expected = call.expected;
  if (expected.kind === 'unauthorized') {
    if (line.ok) return fail(`expected ${types.unauthorized} for HTTP 401, the call succeeded`);
    if (line.error === undefined) return fail('the driver reported a failure without an error');
    if (line.error.type !== types.unauthorized) return fail(`expected ${types.unauthorized} for HTTP 401, got ${describe(line)}`);
    // Each toolkit says it its way: "(401) Unauthorized", "status code 401", a status code field.
    if (!/\b401\b|unauthori[sz]ed/i.test(`${line.error.code ?? ''} ${line.error.message}`)) {
      return fail(`${line.error.type} that does not name HTTP 401: ${line.error.message}`);
    }
    // Shown next to the check: what a caller of this client sees when its credentials are missing.
    return { passed: true, detail: describe(line) };
  }
  const faultType = types.fault;
  if (expected.kind === 'fault') {
    if (line.ok) return fail(`expected ${faultType} with "${expected.message}", the call succeeded`);
    const error = line.error;
    if (error === undefined) return fail('the driver reported a failure without an error');
    if (error.type !== faultType) return fail(`expected ${faultType}, got ${describe(line)}`);
    if (!error.message.includes(expected.message)) return fail(`${error.type} without our message "${expected.message}": ${error.message}`);
    return pass(line);
  }
  if (!line.ok) return fail(describe(line));

  switch (expected.kind) {
    case 'void':
      return pass(line);
    case 'string':
      return line.value === expected.value ? pass(line) : fail(`expected ${JSON.stringify(expected.value)}, got ${JSON.stringify(line.value)}`);
    case 'no-records':
      return line.value === null || (Array.isArray(line.value) && line.value.length === 0)
        ? pass(line)
        : fail(`expected no students, got ${JSON.stringify(line.value)}`);
    case 'records':
      return compareRecords(expected.records, line.value) ?? pass(line);
  }
}

/** Field by field, so that a failure names the record and field that differ. */
function compareRecords(expected: readonly StudentRecord[], actual: unknown): Verdict | null {
  if (!Array.isArray(actual)) return fail(`expected ${expected.length} students, got ${JSON.stringify(actual)}`);
  if (actual.length !== expected.length) return fail(`expected ${expected.length} students, got ${actual.length}: ${JSON.stringify(actual)}`);
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i];
    const got: unknown = actual[i];
    for (const field of Object.keys(want) as (keyof StudentRecord)[]) {
      const value = typeof got === 'object' && got !== null ? (got as Record<string, unknown>)[field] : undefined;
      if (value !== want[field]) return fail(`student ${i + 1} ${field}: expected ${JSON.stringify(want[field])}, got ${JSON.stringify(value)}`);
    }
  }
  return null;
}

function describe(line: DriverLine): string {
  return line.error === undefined ? 'failed without an error' : `${line.error.type}: ${line.error.message}`;
}

function pass(line: DriverLine): Verdict {
  return { passed: true, detail: line.note };
}

function fail(detail: string): Verdict {
  return { passed: false, detail };
}
