// What every client driver calls, by name, and what it must get back. The
// inputs live in the drivers (typed calls on generated code, as a caller
// writes them); the expectations live here once, against the seeded data
// (test/support/fixtures.ts).

export type Binding = 'soap11' | 'soap12' | 'httpget' | 'httppost';

export const BINDING_LABEL: Readonly<Record<Binding, string>> = {
  soap11: 'SOAP 1.1',
  soap12: 'SOAP 1.2',
  httpget: 'HTTP GET',
  httppost: 'HTTP POST',
};

export const ALL_BINDINGS: readonly Binding[] = ['soap11', 'soap12', 'httpget', 'httppost'];

export interface StudentRecord {
  readonly id_student: string | null;
  readonly fullName: string | null;
  readonly id_device: string | null;
  readonly ShowActive: string | null;
}

export type Expected =
  | { readonly kind: 'records'; readonly records: readonly StudentRecord[] }
  /** No students: an empty list, or no list at all where the client maps an empty result element to null. */
  | { readonly kind: 'no-records' }
  | { readonly kind: 'string'; readonly value: string | null }
  | { readonly kind: 'void' }
  /** Our message, surfaced as the client's own fault or exception type. */
  | { readonly kind: 'fault'; readonly message: string }
  /** An HTTP 401 from the access policy, surfaced as the client's own error for it. */
  | { readonly kind: 'unauthorized' };

export interface CallSpec {
  /** The name each driver reports the call under. */
  readonly name: string;
  /** The operation it calls, where a check needs to find it on the wire. */
  readonly operation?: string;
  readonly expected: Expected;
}

/** The active students of School A, ordinal by full name then id; 1005 has no device. */
const SCHOOL_A_ACTIVE: readonly StudentRecord[] = [
  { id_student: '1001', fullName: 'Ahmad Ali', id_device: 'dev-1001', ShowActive: '1' },
  { id_student: '1005', fullName: 'Ahmad Ali', id_device: null, ShowActive: '1' },
  { id_student: '1003', fullName: `O'Brien & <Sons> "Q"`, id_device: 'dev-1003', ShowActive: '1' },
  { id_student: '1002', fullName: 'أحمد علي', id_device: 'dev-1002', ShowActive: '1' },
];

export const CALLS: readonly CallSpec[] = [
  { name: 'GetStudentSchool', expected: { kind: 'records', records: SCHOOL_A_ACTIVE } },
  { name: 'GetStudentSchool (no students)', expected: { kind: 'no-records' } },
  // First of the token calls, so that the recorded GetTokenDevice shows how each client sends non-ASCII.
  { name: 'GetTokenDevice (Arabic id)', expected: { kind: 'string', value: 'fcm:CCCC-3001' } },
  { name: 'GetTokenDevice', expected: { kind: 'string', value: 'fcm:AAAA-1001' } },
  { name: 'GetTokenDevice (escaped)', expected: { kind: 'string', value: 'fcm:BBBB&<2001>' } },
  { name: 'GetTokenDevice (null)', expected: { kind: 'string', value: null } },
  // Early, so that the calls after it show the client and server still talk after a fault.
  { name: 'AuthCode (fault)', expected: { kind: 'fault', message: 'The phone number 12 is not a valid number.' } },
  { name: 'SendNotificationType', expected: { kind: 'void' } },
  { name: 'AuthCode', expected: { kind: 'void' } },
  { name: 'GetStudentsAudtiNote', expected: { kind: 'void' } },
  { name: 'UpdateNoteState', expected: { kind: 'void' } },
  { name: 'GetStudentsAbcenceByID', expected: { kind: 'void' } },
];

/**
 * The suite's two runs: `plain` against the service without a policy, `auth`
 * against one that requires HTTP Basic for everything (docs/interop.md).
 */
export type Run = 'plain' | 'auth';

export const RUNS: readonly Run[] = ['plain', 'auth'];

/** Made by the auth run's drivers last, on a proxy or client that sends no credentials. */
export const REFUSED_CALL = {
  name: 'GetStudentSchool (no credentials)',
  operation: 'GetStudentSchool',
  expected: { kind: 'unauthorized' },
} as const satisfies CallSpec;

/** Every call of the plain run with credentials, then one without. */
export function callsOf(run: Run): readonly CallSpec[] {
  return run === 'plain' ? CALLS : [...CALLS, REFUSED_CALL];
}
