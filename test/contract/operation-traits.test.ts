// The lists the parts read from the operations' traits (docs/design.md#operation-traits)
// are the ones they each kept by hand before: the access policy's fail-closed
// list, the audit subjects and what the enumeration budget counts, the writes
// the comparison and the shadow calls hold back, the seeding's allow-list, the
// apps' JSON bodies and the comparison's known values. UpdateNoteState stays a
// write that reads personal data: both lists keep it.
import { PolicyError, parsePolicy } from '../../src/access';
import { subjectRule } from '../../src/access/subjects';
import { ENDPOINTS, OPERATION_TRAITS, type OperationModel, type WireOperationName } from '../../src/contract';
import { READ_OPERATIONS } from '../../src/legacy-kit/seed';
import { operationKind, WRITE_OPERATIONS } from '../../src/legacy-kit/compare';
import { planRequests, type KnownData } from '../../src/legacy-kit/compare/generate-requests';
import type { DescribedEndpoint } from '../../src/legacy-kit/compare/wsdl-operations';
import { appJsonWriter } from '../../src/wire/http/app-json';

const OPERATIONS = Object.keys(OPERATION_TRAITS) as WireOperationName[];

/** The operations the policy refuses to leave open to everyone, read from its refusal. */
function failClosed(): string[] {
  try {
    parsePolicy('realm: Schools\n');
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError);
    return [...(err as Error).message.matchAll(/\.(\w+): \1 reads personal data/g)].map((m) => m[1] ?? '');
  }
  throw new Error('a policy leaving everything open was accepted');
}

describe('the lists read from the operations traits', () => {
  test('every operation of the contract has its row, and no other', () => {
    const contract = ENDPOINTS.flatMap((endpoint) => endpoint.operations.map((op) => op.wireName));
    expect(OPERATIONS.slice().sort()).toEqual(contract.slice().sort());
  });

  test('the policy fails closed on the five operations that answer personal data', () => {
    expect(failClosed().sort()).toEqual([
      'GetStudentSchool',
      'GetStudentsAbcenceByID',
      'GetStudentsAudtiNote',
      'GetTokenDevice',
      'UpdateNoteState',
    ]);
  });

  test('the audit trail records the same subjects, and the enumeration budget counts students and devices', () => {
    const rules = Object.fromEntries(OPERATIONS.map((op) => [op, subjectRule(op) ?? null]));
    expect(rules).toEqual({
      AuthCode: null,
      GetStudentSchool: { kind: 'school', parameter: 'school_base_url', enumerated: false },
      GetTokenDevice: { kind: 'device', parameter: 'id', enumerated: true },
      GetStudentsAbcenceByID: { kind: 'student', parameter: 'STDid', enumerated: true },
      UpdateNoteState: { kind: 'student', parameter: 'STDid', enumerated: true },
      SendNotificationType: { kind: 'student', parameter: 'id', enumerated: true },
      GetStudentsAudtiNote: { kind: 'class', parameter: 'Class_id', enumerated: false },
    });
  });

  test('the writes are the four that queue a message or mark records, and an unknown name counts as one', () => {
    expect(WRITE_OPERATIONS.slice().sort()).toEqual([
      'AuthCode',
      'GetStudentsAbcenceByID',
      'SendNotificationType',
      'UpdateNoteState',
    ]);
    expect(OPERATIONS.filter((op) => operationKind(op) === 'read').sort()).toEqual([
      'GetStudentSchool',
      'GetStudentsAudtiNote',
      'GetTokenDevice',
    ]);
    expect(operationKind('DeleteEverything')).toBe('write');
  });

  test('the seeding may call the two reads it needs, each on its endpoint', () => {
    expect(READ_OPERATIONS).toEqual({
      GetStudentSchool: 'NotificationNotes',
      GetTokenDevice: 'PushNotificationMobile',
    });
  });

  test('the apps read JSON from the two note operations and the absences', () => {
    const withJson = OPERATIONS.filter(
      (op) => appJsonWriter({ wireName: op } as OperationModel<typeof op>) !== null,
    ).sort();
    expect(withJson).toEqual(['GetStudentsAbcenceByID', 'GetStudentsAudtiNote', 'UpdateNoteState']);
    const note = {
      id: 'n1',
      studentId: '1',
      type: 't',
      subjectId: null,
      classId: null,
      text: 'x',
      date: 'd',
      badge: null,
      state: 'unread' as const,
    };
    const notes = appJsonWriter({ wireName: 'UpdateNoteState' } as OperationModel<'UpdateNoteState'>);
    expect(JSON.parse(notes?.([note]) ?? '')).toEqual([
      { srid: '1', note_date: 'd', note: 'x', note_type: 't', badge: '', id: 'n1', IDNote: 'n1' },
    ]);
  });

  test("the comparison's known case sends each operation the data's values, under the contract's parameter names", () => {
    const data: KnownData = {
      studentIds: ['1001'],
      deviceIds: ['dev-1'],
      schools: ['https://a.example', 'https://b.example'],
      auditNotes: [{ subjectId: 'math', classId: '7A' }],
      notes: [{ studentId: '1001', type: 'general' }],
      absenceStudents: ['1002'],
    };
    const endpoints: DescribedEndpoint[] = ENDPOINTS.map((endpoint) => ({
      name: endpoint.name,
      namespace: 'http://tempuri.org/',
      operations: endpoint.operations.map((op) => ({
        name: op.wireName,
        soapAction: `http://tempuri.org/${op.wireName}`,
        parameters: op.parameters.map((p) => ({ name: p.wireName, type: p.type })),
      })),
    }));
    const known = Object.fromEntries(
      OPERATIONS.map((op) => [
        op,
        planRequests(endpoints, data, true)
          .filter((r) => r.operation === op && r.binding === 'http_get' && r.case.startsWith('known'))
          .map((r) => decodeURIComponent(r.request.path.split('?')[1] ?? '')),
      ]),
    );
    expect(known).toEqual({
      AuthCode: ['code=1234&phone=not-a-phone'],
      GetStudentsAbcenceByID: ['STDid=1002'],
      GetStudentsAudtiNote: ['SubjectID=math&Class_id=7A'],
      GetStudentSchool: [
        'school_base_url=https://a.example&show_active=1',
        'school_base_url=https://a.example&show_active=0',
        'school_base_url=https://b.example&show_active=1',
      ],
      SendNotificationType: ['id=1001&baseUrlSchool=https://a.example&TypeNotfication=absence'],
      GetTokenDevice: ['id=dev-1'],
      UpdateNoteState: ['STDid=1001&note_type=general'],
    });
  });
});
