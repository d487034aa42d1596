// Generated from wsdl/*.wsdl by `npm run contract` (src/contract/generate.ts): do not edit.
// test/contract/generated.test.ts fails when this file no longer matches the WSDL files.
import type { StudentInfo } from './student-info';

/** Each endpoint (named after its WSDL file), its operations in WSDL order, their parameters in order and their result type. */
export const WSDL_ENDPOINTS = {
  AuthCodeSending: {
    AuthCode: {
      parameters: [
        { wireName: 'code', type: 'string' },
        { wireName: 'phone', type: 'string' },
      ],
      result: 'void',
    },
  },
  GetStudentsAbsence: {
    GetStudentsAbcenceByID: {
      parameters: [
        { wireName: 'STDid', type: 'string' },
      ],
      result: 'void',
    },
  },
  GetStudentsAudit: {
    GetStudentsAudtiNote: {
      parameters: [
        { wireName: 'SubjectID', type: 'string' },
        { wireName: 'Class_id', type: 'string' },
      ],
      result: 'void',
    },
  },
  NotificationNotes: {
    GetStudentSchool: {
      parameters: [
        { wireName: 'school_base_url', type: 'string' },
        { wireName: 'show_active', type: 'char' },
      ],
      result: 'ArrayOfStudentInfo',
    },
    SendNotificationType: {
      parameters: [
        { wireName: 'id', type: 'string' },
        { wireName: 'baseUrlSchool', type: 'string' },
        { wireName: 'TypeNotfication', type: 'string' },
      ],
      result: 'void',
    },
  },
  PushNotificationMobile: {
    GetTokenDevice: {
      parameters: [
        { wireName: 'id', type: 'string' },
      ],
      result: 'string',
    },
  },
  ReadNoteFromApp: {
    UpdateNoteState: {
      parameters: [
        { wireName: 'STDid', type: 'string' },
        { wireName: 'note_type', type: 'string' },
      ],
      result: 'void',
    },
  },
} as const;

/** The fields of StudentInfo in schema order, each an optional string. */
export const STUDENT_INFO_WIRE_FIELDS = ['id_student', 'fullName', 'id_device', 'ShowActive'] as const;

/** AuthCode's arguments by wire name, as the bindings read them: a value left out is null. */
export interface AuthCodeArgs {
  readonly code: string | null;
  readonly phone: string | null;
}
/** AuthCode's result (void on the wire). */
export type AuthCodeResult = void;

/** GetStudentsAbcenceByID's arguments by wire name, as the bindings read them: a value left out is null. */
export interface GetStudentsAbcenceByIDArgs {
  readonly STDid: string | null;
}
/** GetStudentsAbcenceByID's result (void on the wire). */
export type GetStudentsAbcenceByIDResult = void;

/** GetStudentsAudtiNote's arguments by wire name, as the bindings read them: a value left out is null. */
export interface GetStudentsAudtiNoteArgs {
  readonly SubjectID: string | null;
  readonly Class_id: string | null;
}
/** GetStudentsAudtiNote's result (void on the wire). */
export type GetStudentsAudtiNoteResult = void;

/** GetStudentSchool's arguments by wire name, as the bindings read them: a value left out is null. */
export interface GetStudentSchoolArgs {
  readonly school_base_url: string | null;
  readonly show_active: string | null;
}
/** GetStudentSchool's result (ArrayOfStudentInfo on the wire). */
export type GetStudentSchoolResult = StudentInfo[];

/** SendNotificationType's arguments by wire name, as the bindings read them: a value left out is null. */
export interface SendNotificationTypeArgs {
  readonly id: string | null;
  readonly baseUrlSchool: string | null;
  readonly TypeNotfication: string | null;
}
/** SendNotificationType's result (void on the wire). */
export type SendNotificationTypeResult = void;

/** GetTokenDevice's arguments by wire name, as the bindings read them: a value left out is null. */
export interface GetTokenDeviceArgs {
  readonly id: string | null;
}
/** GetTokenDevice's result (string on the wire). */
export type GetTokenDeviceResult = string | null;

/** UpdateNoteState's arguments by wire name, as the bindings read them: a value left out is null. */
export interface UpdateNoteStateArgs {
  readonly STDid: string | null;
  readonly note_type: string | null;
}
/** UpdateNoteState's result (void on the wire). */
export type UpdateNoteStateResult = void;

/** Every operation: its arguments and its result. */
export interface WireOperations {
  AuthCode: { readonly args: AuthCodeArgs; readonly result: AuthCodeResult };
  GetStudentsAbcenceByID: { readonly args: GetStudentsAbcenceByIDArgs; readonly result: GetStudentsAbcenceByIDResult };
  GetStudentsAudtiNote: { readonly args: GetStudentsAudtiNoteArgs; readonly result: GetStudentsAudtiNoteResult };
  GetStudentSchool: { readonly args: GetStudentSchoolArgs; readonly result: GetStudentSchoolResult };
  SendNotificationType: { readonly args: SendNotificationTypeArgs; readonly result: SendNotificationTypeResult };
  GetTokenDevice: { readonly args: GetTokenDeviceArgs; readonly result: GetTokenDeviceResult };
  UpdateNoteState: { readonly args: UpdateNoteStateArgs; readonly result: UpdateNoteStateResult };
}

export type WireOperationName = keyof WireOperations;

/** Each operation's arguments from the values a binding read, in WSDL order. */
export const ARGUMENT_READERS: { readonly [K in WireOperationName]: (values: readonly (string | null)[]) => WireOperations[K]['args'] } = {
  AuthCode: (values) => ({ code: values[0] ?? null, phone: values[1] ?? null }),
  GetStudentsAbcenceByID: (values) => ({ STDid: values[0] ?? null }),
  GetStudentsAudtiNote: (values) => ({ SubjectID: values[0] ?? null, Class_id: values[1] ?? null }),
  GetStudentSchool: (values) => ({ school_base_url: values[0] ?? null, show_active: values[1] ?? null }),
  SendNotificationType: (values) => ({ id: values[0] ?? null, baseUrlSchool: values[1] ?? null, TypeNotfication: values[2] ?? null }),
  GetTokenDevice: (values) => ({ id: values[0] ?? null }),
  UpdateNoteState: (values) => ({ STDid: values[0] ?? null, note_type: values[1] ?? null }),
};
