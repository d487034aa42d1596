// StudentInfo, the one record type of the contract: its fields come from the
// WSDL (generated.ts); the name each has in our code is ours.
import { STUDENT_INFO_WIRE_FIELDS } from './generated';

export type StudentInfoWireField = (typeof STUDENT_INFO_WIRE_FIELDS)[number];

/** Our name for each StudentInfo field (a field missing here, or one the WSDL lacks, does not compile). */
const STUDENT_INFO_KEYS = {
  id_student: 'studentId',
  fullName: 'fullName',
  id_device: 'deviceId',
  ShowActive: 'showActive',
} as const satisfies Record<StudentInfoWireField, string>;

export type StudentInfoKey = (typeof STUDENT_INFO_KEYS)[StudentInfoWireField];

export type StudentInfo = { readonly [K in StudentInfoKey]: string | null };

/** The fields of a StudentInfo record in schema order, with the name each has in our code. */
export const STUDENT_INFO_FIELDS: readonly { readonly wireName: StudentInfoWireField; readonly key: StudentInfoKey }[] =
  STUDENT_INFO_WIRE_FIELDS.map((wireName) => ({ wireName, key: STUDENT_INFO_KEYS[wireName] }));
