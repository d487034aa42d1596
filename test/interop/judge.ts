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

/** How the relay saw the refused call answered: its last request for the call's operation, or none. */
export interface RefusalOnWire {
  readonly status: number;
  readonly challenge?: string;
}

/**
 * `refusal`: for the unauthorized call, what went over the wire. Several clients raise their
 * fault type for a 401 too, so the error's type and text alone cannot tell a refusal from
 * another failure: the wire must show the 401 with its Basic challenge.
 */
export function judge(call: CallSpec, line: DriverLine, types: ErrorTypes, refusal?: RefusalOnWire | null): Verdict {
  const expected = call.expected;
  if (expected.kind === 'unauthorized') {
    if (line.ok) return fail(`expected ${types.unauthorized} for HTTP 401, the call succeeded`);
    if (line.error === undefined) return fail('the driver reported a failure without an error');
    if (line.error.type !== types.unauthorized)
      return fail(`expected ${types.unauthorized} for HTTP 401, got ${describe(line)}`);
    if (refusal === undefined || refusal === null)
      return fail(`the relay saw no request for this call without credentials (${describe(line)})`);
    if (refusal.status !== 401 || !/^Basic\b/i.test(refusal.challenge ?? '')) {
      return fail(
        `the call was answered ${refusal.status}${refusal.challenge === undefined ? ' without a challenge' : ` (WWW-Authenticate: ${refusal.challenge})`}, not 401 with a Basic challenge (${describe(line)})`,
      );
    }
    if (line.error.code !== undefined && /^\d+$/.test(line.error.code.trim()) && line.error.code.trim() !== '401') {
      return fail(`${line.error.type} with status code ${line.error.code}, not 401: ${line.error.message}`);
    }
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
    if (!error.message.includes(expected.message))
      return fail(`${error.type} without our message "${expected.message}": ${error.message}`);
    return pass(line);
  }
  if (!line.ok) return fail(describe(line));

  switch (expected.kind) {
    case 'void':
      return pass(line);
    case 'string':
      return line.value === expected.value
        ? pass(line)
        : fail(`expected ${JSON.stringify(expected.value)}, got ${JSON.stringify(line.value)}`);
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
  if (actual.length !== expected.length)
    return fail(`expected ${expected.length} students, got ${actual.length}: ${JSON.stringify(actual)}`);
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i];
    const got: unknown = actual[i];
    for (const field of Object.keys(want) as (keyof StudentRecord)[]) {
      const value = typeof got === 'object' && got !== null ? (got as Record<string, unknown>)[field] : undefined;
      if (value !== want[field])
        return fail(`student ${i + 1} ${field}: expected ${JSON.stringify(want[field])}, got ${JSON.stringify(value)}`);
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
