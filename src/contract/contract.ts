// The one description of the service's contract (docs/design.md#the-contract):
// endpoints, operations, their parameters and results, spelled as on the
// wire, with the mapping to the names our own code uses. The SOAP layer, the
// GET/POST adapter, the WSDL check, the help pages and the tests all read it;
// nothing else restates an operation's name or parameter list.

/** `char` is a .NET System.Char: its UTF-16 code in SOAP, the character itself over GET/POST. */
export type ParameterType = 'string' | 'char';

export type ResultType = 'void' | 'string' | 'ArrayOfStudentInfo';

export type OperationName =
  'sendAuthCode' | 'listAuditNotes' | 'markNotesRead' | 'listAbsences' | 'listSchoolStudents' | 'getDeviceToken' | 'queueNotification';

export interface ParameterSpec {
  /** Name on the wire (element name in SOAP, key over GET/POST). */
  readonly wireName: string;
  /** Name of the argument in our implementation. */
  readonly argName: string;
  readonly type: ParameterType;
}

export interface OperationSpec {
  /** Name on the wire, exactly as the contract spells it. */
  readonly wireName: string;
  readonly implementation: OperationName;
  readonly parameters: readonly ParameterSpec[];
  readonly result: ResultType;
}

export interface EndpointSpec {
  /** The service name: `/NotificationNotes.asmx` is `NotificationNotes`. */
  readonly name: string;
  /** Operations in declaration order (the order of the WSDL). */
  readonly operations: readonly OperationSpec[];
}

const str = (wireName: string, argName: string): ParameterSpec => ({ wireName, argName, type: 'string' });

export const ENDPOINTS: readonly EndpointSpec[] = [
  {
    name: 'AuthCodeSending',
    operations: [
      {
        wireName: 'AuthCode',
        implementation: 'sendAuthCode',
        parameters: [str('code', 'code'), str('phone', 'phone')],
        result: 'void',
      },
    ],
  },
  {
    name: 'GetStudentsAudit',
    operations: [
      {
        wireName: 'GetStudentsAudtiNote',
        implementation: 'listAuditNotes',
        parameters: [str('SubjectID', 'subjectId'), str('Class_id', 'classId')],
        result: 'void',
      },
    ],
  },
  {
    name: 'ReadNoteFromApp',
    operations: [
      {
        wireName: 'UpdateNoteState',
        implementation: 'markNotesRead',
        parameters: [str('STDid', 'studentId'), str('note_type', 'noteType')],
        result: 'void',
      },
    ],
  },
  {
    name: 'GetStudentsAbsence',
    operations: [
      {
        wireName: 'GetStudentsAbcenceByID',
        implementation: 'listAbsences',
        parameters: [str('STDid', 'studentId')],
        result: 'void',
      },
    ],
  },
  {
    name: 'NotificationNotes',
    operations: [
      {
        wireName: 'GetStudentSchool',
        implementation: 'listSchoolStudents',
        parameters: [str('school_base_url', 'schoolBaseUrl'), { wireName: 'show_active', argName: 'showActive', type: 'char' }],
        result: 'ArrayOfStudentInfo',
      },
      {
        wireName: 'SendNotificationType',
        implementation: 'queueNotification',
        parameters: [str('id', 'studentId'), str('baseUrlSchool', 'schoolBaseUrl'), str('TypeNotfication', 'type')],
        result: 'void',
      },
    ],
  },
  {
    name: 'PushNotificationMobile',
    operations: [
      {
        wireName: 'GetTokenDevice',
        implementation: 'getDeviceToken',
        parameters: [str('id', 'deviceId')],
        result: 'string',
      },
    ],
  },
];

/** The fields of a StudentInfo record in schema order, with the name each has in our code. */
export const STUDENT_INFO_FIELDS = [
  { wireName: 'id_student', key: 'studentId' },
  { wireName: 'fullName', key: 'fullName' },
  { wireName: 'id_device', key: 'deviceId' },
  { wireName: 'ShowActive', key: 'showActive' },
] as const;

export type StudentInfo = { readonly [F in (typeof STUDENT_INFO_FIELDS)[number] as F['key']]: string | null };

/** The element the HTTP GET/POST bindings answer with, per result type (null: no body). */
export const HTTP_ROOT_ELEMENT: Readonly<Record<ResultType, string | null>> = {
  void: null,
  string: 'string',
  ArrayOfStudentInfo: 'ArrayOfStudentInfo',
};

export const DEFAULT_NAMESPACE = 'http://tempuri.org/';

/** ASMX's default SOAPAction: the namespace and the operation, with a `/` between them when the namespace lacks one. */
export function soapActionFor(namespace: string, operation: string): string {
  return namespace.endsWith('/') ? namespace + operation : `${namespace}/${operation}`;
}
