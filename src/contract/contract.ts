// The service's contract (docs/design.md#the-contract). What the WSDL files
// say (endpoints, operations, parameters, result types) is generated from
// them into generated.ts by `npm run contract`; this module adds only what
// they cannot say (the order the service lists its endpoints in, the
// namespace default) and gives the rest of the code one runtime table of it.
// The operations themselves are in src/operations, one module each.
import { WSDL_ENDPOINTS, type WireOperationName } from './generated';
import type { StudentInfo } from './student-info';

export { ARGUMENT_READERS, type WireOperationName, type WireOperations } from './generated';

/** `char` is a .NET System.Char: its UTF-16 code in SOAP, the character itself over GET/POST. */
export type ParameterType = 'string' | 'char';

/**
 * What a result of each type carries: what an operation of that type answers
 * and what the bindings write. A void result writes nothing, so its
 * operation may answer what it read (docs/design.md#json-bodies).
 */
export interface ResultValues {
  readonly void: unknown;
  readonly string: string | null;
  readonly ArrayOfStudentInfo: readonly StudentInfo[];
}

export type ResultType = keyof ResultValues;

export type EndpointName = keyof typeof WSDL_ENDPOINTS;

/** The operations of every endpoint, one record per endpoint. */
type WsdlOperations = (typeof WSDL_ENDPOINTS)[EndpointName];

/** Each operation's result type, as its WSDL declares it. */
export type ResultTypeOf = {
  readonly [K in WireOperationName]: WsdlOperations extends infer E
    ? E extends { readonly [P in K]: { readonly result: infer R extends ResultType } }
      ? R
      : never
    : never;
};

export interface ParameterSpec {
  /** Name on the wire (element name in SOAP, key over GET/POST). */
  readonly wireName: string;
  readonly type: ParameterType;
}

/** An operation of the contract; `K` names it, so that its result type is its own (ResultTypeOf). */
export interface OperationSpec<K extends WireOperationName = WireOperationName> {
  /** Name on the wire, exactly as the contract spells it. */
  readonly wireName: K;
  readonly parameters: readonly ParameterSpec[];
  readonly result: ResultTypeOf[K];
}

export interface EndpointSpec {
  /** The service name: `/NotificationNotes.asmx` is `NotificationNotes`. */
  readonly name: EndpointName;
  /** Operations in declaration order (the order of the WSDL). */
  readonly operations: readonly OperationSpec[];
}

/** The order the root page, the policy's messages and the tests list the endpoints in (every endpoint once, or it does not compile). */
const ENDPOINT_ORDER = [
  'AuthCodeSending',
  'GetStudentsAudit',
  'ReadNoteFromApp',
  'GetStudentsAbsence',
  'NotificationNotes',
  'PushNotificationMobile',
] as const satisfies readonly EndpointName[];
type Listed = (typeof ENDPOINT_ORDER)[number];
// Fails to compile when an endpoint of the WSDL files is missing from the list above.
const everyEndpointListed: Record<Exclude<EndpointName, Listed>, never> = {};
void everyEndpointListed;

// The generated table, read as plain records.
const WSDL_TABLE: Readonly<
  Record<
    EndpointName,
    Readonly<Record<string, { readonly parameters: readonly ParameterSpec[]; readonly result: ResultType }>>
  >
> = WSDL_ENDPOINTS;

const isOperationName = (name: string): name is WireOperationName =>
  Object.values(WSDL_TABLE).some((operations) => Object.hasOwn(operations, name));

export const ENDPOINTS: readonly EndpointSpec[] = ENDPOINT_ORDER.map((name) => ({
  name,
  operations: Object.entries(WSDL_TABLE[name]).map(([wireName, op]) => {
    if (!isOperationName(wireName)) throw new Error(`unreachable: ${wireName}`);
    return { wireName, parameters: op.parameters, result: op.result };
  }),
}));

export const DEFAULT_NAMESPACE = 'http://tempuri.org/';

/** ASMX's default SOAPAction: the namespace and the operation, with a `/` between them when the namespace lacks one. */
export function soapActionFor(namespace: string, operation: string): string {
  return namespace.endsWith('/') ? namespace + operation : `${namespace}/${operation}`;
}
