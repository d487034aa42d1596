import { COLLECTION_OF, type DataSet, type DataSetCollection, type NewAuditRow } from '../../src/store';

/** The data the wire tests run against: small, with every case the wire cares about. */
export const FIXTURES: DataSet = {
  schools: [
    { baseUrl: 'https://school-a.example', name: 'School A' },
    { baseUrl: 'https://school-b.example/', name: 'School B' },
  ],
  devices: [
    { id: 'dev-1001', token: 'fcm:AAAA-1001', platform: 'android' },
    { id: 'dev-1002', token: 'fcm:AAAA-1002', platform: 'ios' },
    { id: 'dev-1003', token: null, platform: 'android' },
    { id: 'dev-2001', token: 'fcm:BBBB&<2001>', platform: 'android' },
    { id: 'جهاز-3001', token: 'fcm:CCCC-3001', platform: 'ios' },
  ],
  students: [
    {
      id: '1001',
      school: 'https://school-a.example',
      fullName: 'Ahmad Ali',
      deviceId: 'dev-1001',
      active: '1',
      classId: '7A',
    },
    {
      id: '1002',
      school: 'https://school-a.example',
      fullName: 'أحمد علي',
      deviceId: 'dev-1002',
      active: '1',
      classId: '7A',
    },
    {
      id: '1003',
      school: 'https://school-a.example',
      fullName: `O'Brien & <Sons> "Q"`,
      deviceId: 'dev-1003',
      active: '1',
      classId: '7B',
    },
    {
      id: '1004',
      school: 'https://school-a.example',
      fullName: 'Zaid Ali',
      deviceId: 'dev-1001',
      active: '0',
      classId: '5A',
    },
    {
      id: '1005',
      school: 'https://school-a.example',
      fullName: 'Ahmad Ali',
      deviceId: null,
      active: '1',
      classId: '7A',
    },
    {
      id: '2001',
      school: 'https://school-b.example',
      fullName: 'Maya Haddad',
      deviceId: 'dev-2001',
      active: '1',
      classId: '9C',
    },
  ],
  notes: [
    {
      id: 'n1',
      studentId: '1001',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'Homework missing',
      date: '2026-10-01T08:00:00Z',
      badge: '1',
      state: 'unread',
    },
    {
      id: 'n2',
      studentId: '1002',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'ممتاز',
      date: '2026-10-03T08:00:00Z',
      badge: '2',
      state: 'unread',
    },
    {
      id: 'n3',
      studentId: '1001',
      type: 'behaviour',
      subjectId: null,
      classId: '7A',
      text: 'Talked in class',
      date: '2026-10-02T09:00:00Z',
      badge: null,
      state: 'unread',
    },
  ],
  absences: [
    { id: 'a1', studentId: '1001', date: '2026-10-05', type: 'full-day', reason: 'مريض', seen: false },
    { id: 'a2', studentId: '1001', date: '2026-10-07', type: 'late', reason: null, seen: false },
  ],
};

/** One audit-trail row as the store takes it; `endpoint` is the contract's name, as the gate records it. */
export function auditRow(at: string, overrides: Partial<NewAuditRow> = {}): NewAuditRow {
  return {
    at,
    address: '10.0.0.1',
    user: null,
    endpoint: 'NotificationNotes',
    operation: 'GetStudentsAbcenceByID',
    subjectKind: 'student',
    subject: '1001',
    outcome: 'allowed',
    reason: null,
    subjectLength: null,
    subjectSha256: null,
    omitted: null,
    ...overrides,
  };
}

/**
 * `record` as the store gives it back: each field it leaves out at what a new
 * record stores (null for optional text, the default of a choice), so that a
 * test names only the fields it sets and a field added later does not change it.
 */
export function asStored(
  collection: DataSetCollection,
  record: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const fields = COLLECTION_OF[collection].fields as Readonly<
    Record<string, { fromColumn(value: unknown): unknown; default: unknown }>
  >;
  return Object.fromEntries(
    COLLECTION_OF[collection].fieldNames.map((name) => [
      name,
      Object.hasOwn(record, name) ? record[name] : fields[name].fromColumn(fields[name].default),
    ]),
  );
}
