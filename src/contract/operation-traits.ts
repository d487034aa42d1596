// What each operation of the contract is, stated once (docs/design.md#operation-traits):
// whether it changes anything, whether its answer holds personal data, whose
// data a call touches, whether the seeding may call it on the legacy service,
// and which JSON body the apps read from it. The access policy, the audit
// trail, the enumeration budget, the comparison, the shadow calls, the
// request recording, the seeding and the JSON bodies all read their lists
// from here, so an operation the WSDL gains does not compile until it has
// its row, and no two of those lists can disagree.
import type { WireOperationName, WireOperations } from './contract';

/** Whose data a call touches: what the audit trail records as its subject. */
export type SubjectKind = 'student' | 'school' | 'device' | 'class';

/** The JSON bodies the parents' apps read (docs/design.md#json-bodies). */
export type AppJsonBody = 'notes' | 'absences';

/** The wire names of K's parameters; of any operation's when K is the union. */
type ParameterOf<K extends WireOperationName> = K extends unknown ? keyof WireOperations[K]['args'] & string : never;

export interface OperationSubject<K extends WireOperationName = WireOperationName> {
  readonly kind: SubjectKind;
  /** The parameter (its wire name) that holds the subject; one the operation lacks does not compile. */
  readonly parameter: ParameterOf<K>;
  /** The enumeration budget counts the different subjects a caller reads (walking through ids). */
  readonly enumerated: boolean;
}

/**
 * `read`: the call changes nothing, so the service may shadow it to the
 * legacy service and record it, and the comparison sends it unasked;
 * `write`: it changes state or sends something (marks notes read, queues a
 * push), so none of that happens to it, and the seeding never calls it.
 */
type Effect =
  { readonly effect: 'read'; readonly seeding: boolean } | { readonly effect: 'write'; readonly seeding: false };

export type OperationTraits<K extends WireOperationName = WireOperationName> = Effect & {
  /**
   * Its answer holds personal data (children's names and ids, notes,
   * absences, a push token): the access policy fails closed on it
   * (docs/security.md#the-policy-fails-closed). Said of what a call
   * discloses, whether or not it also writes.
   */
  readonly readsPersonalData: boolean;
  /** Whose data a call touches, recorded in the audit trail; null: not audited. */
  readonly subject: OperationSubject<K> | null;
  /** The JSON body the apps read from its HTTP GET/POST answer; null: none. */
  readonly appJson: AppJsonBody | null;
};

// `seeding`: the seeding from the legacy service (docs/migration.md) calls it.
// UpdateNoteState and GetStudentsAbcenceByID both write (they mark notes read
// and absences seen) and answer a student's personal data: the two facts are
// separate questions, asked by different parts.
export const OPERATION_TRAITS = {
  AuthCode: {
    effect: 'write', // queues an SMS
    seeding: false,
    readsPersonalData: false,
    subject: null,
    appJson: null,
  },
  GetStudentsAbcenceByID: {
    effect: 'write', // marks absences seen
    seeding: false,
    readsPersonalData: true,
    subject: { kind: 'student', parameter: 'STDid', enumerated: true },
    appJson: 'absences',
  },
  GetStudentsAudtiNote: {
    effect: 'read',
    seeding: false,
    readsPersonalData: true,
    subject: { kind: 'class', parameter: 'Class_id', enumerated: false },
    appJson: 'notes',
  },
  GetStudentSchool: {
    effect: 'read',
    seeding: true,
    readsPersonalData: true,
    subject: { kind: 'school', parameter: 'school_base_url', enumerated: false },
    appJson: null,
  },
  SendNotificationType: {
    effect: 'write', // queues a push notification
    seeding: false,
    readsPersonalData: false,
    subject: { kind: 'student', parameter: 'id', enumerated: true },
    appJson: null,
  },
  GetTokenDevice: {
    effect: 'read',
    seeding: true,
    readsPersonalData: true,
    subject: { kind: 'device', parameter: 'id', enumerated: true },
    appJson: null,
  },
  UpdateNoteState: {
    effect: 'write', // marks notes read
    seeding: false,
    readsPersonalData: true,
    subject: { kind: 'student', parameter: 'STDid', enumerated: true },
    appJson: 'notes',
  },
} as const satisfies { readonly [K in WireOperationName]: OperationTraits<K> };

type Traits = typeof OPERATION_TRAITS;

const OPERATION_NAMES = Object.keys(OPERATION_TRAITS) as WireOperationName[];

/** Whether a name on the wire is an operation of the contract (a compared server's WSDL may have others). */
export function isContractOperation(name: string): name is WireOperationName {
  return Object.hasOwn(OPERATION_TRAITS, name);
}

/** An operation's traits, or undefined for a name the contract lacks. */
export function operationTraits(name: string): OperationTraits | undefined {
  return isContractOperation(name) ? OPERATION_TRAITS[name] : undefined;
}

/** The operations whose traits match, in the table's order. */
export function operationsWhere(test: (traits: OperationTraits) => boolean): WireOperationName[] {
  return OPERATION_NAMES.filter((name) => test(OPERATION_TRAITS[name]));
}

/** The operations the seeding may call, as a type. */
export type SeedingOperation = {
  [K in WireOperationName]: Traits[K]['seeding'] extends true ? K : never;
}[WireOperationName];

/** The operations the apps read a JSON body from, with the body, as a type. */
export type AppJsonOperation<B extends AppJsonBody = AppJsonBody> = {
  [K in WireOperationName]: Traits[K]['appJson'] extends B ? K : never;
}[WireOperationName];
