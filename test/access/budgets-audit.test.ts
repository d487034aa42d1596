// `limit` and `enumeration` refusals (ASMX-shaped, with Retry-After) and the
// audit entries of reads of personal data: budgets and audit trail through
// small in-test implementations of the interfaces in src/access/contracts.ts,
// the enumeration guard the real one (its warn line is part of the behaviour).
import type { AuditEntry, AuditTrail, BudgetVerdict, CallBudgets, RateRule } from '../../src/access';
import { createEnumerationGuard } from '../../src/access/enumeration-guard';
import { SOAP11_ENV, SOAP12_ENV, bodyText, type Params } from '../support/wire';
import {
  BINDINGS,
  OPEN_PERSONAL_READS,
  PASSWORDS,
  basic,
  callOp,
  isSoap,
  startWithPolicy,
  usersYaml,
  type Binding,
  type CallOptions,
  type ServiceWithPolicy,
} from './support';

/** A fixed window per key and caller; what the real one does across nodes is its own tests' business. */
class CountingBudgets implements CallBudgets {
  readonly taken: { key: string; caller: string; rule: RateRule }[] = [];
  private readonly counts = new Map<string, number>();
  take(key: string, caller: string, rule: RateRule): BudgetVerdict {
    this.taken.push({ key, caller, rule });
    const id = `${key} ${caller}`;
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return count <= rule.max ? { ok: true } : { ok: false, retryAfterSeconds: 42.2 };
  }
  spent(key: string, caller: string, rule: RateRule): BudgetVerdict {
    return (this.counts.get(`${key} ${caller}`) ?? 0) < rule.max
      ? { ok: true }
      : { ok: false, retryAfterSeconds: 42.2 };
  }
  start(): void {}
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

class ListAudit implements AuditTrail {
  readonly entries: AuditEntry[] = [];
  record(entry: AuditEntry): void {
    this.entries.push(entry);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

const POLICY = `${usersYaml()}default:
  limit: 1000/1m
endpoints:
  PushNotificationMobile.asmx:
    GetTokenDevice: { limit: 3/1m }
  GetStudentsAbsence.asmx:
    GetStudentsAbcenceByID: { enumeration: 2/1h }
  NotificationNotes.asmx:
    GetStudentSchool: { auth: basic, allow: ["10.0.0.0/8"] }
`;

function expectAsmxClientFault(
  res: { status: number; headers: Record<string, string> },
  binding: Binding,
  body: string,
  message: string,
): void {
  expect(res.status).toBe(500);
  if (isSoap(binding)) {
    const v12 = binding === 'SOAP 1.2';
    expect(res.headers['content-type']).toBe(v12 ? 'application/soap+xml; charset=utf-8' : 'text/xml; charset=utf-8');
    expect(body).toContain(`xmlns:soap="${v12 ? SOAP12_ENV : SOAP11_ENV}"`);
    expect(body).toContain(v12 ? '<soap:Value>soap:Sender</soap:Value>' : '<faultcode>soap:Client</faultcode>');
    expect(body).toContain(message);
  } else {
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(body).toBe(`${message}\r\n`);
  }
}

const HALF_PAST = Date.parse('2030-01-01T00:30:00.000Z');

describe.each(BINDINGS)('%s', (binding) => {
  let withPolicy: ServiceWithPolicy;
  let budgets: CountingBudgets;
  let audit: ListAudit;
  beforeEach(async () => {
    budgets = new CountingBudgets();
    audit = new ListAudit();
    // Half past an hour: the enumeration guard's hour-long window ends in 1,800 s, whenever the suite runs.
    withPolicy = await startWithPolicy(
      POLICY,
      (logger) => ({ budgets, enumeration: createEnumerationGuard({ logger }), audit }),
      { now: () => HALF_PAST },
    );
  });
  afterEach(async () => {
    await withPolicy.close();
  });

  test('past its limit a caller gets an ASMX client fault with Retry-After; another caller does not', async () => {
    const token = (from: string) =>
      callOp(withPolicy.service.app, binding, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }, { from });
    for (let i = 0; i < 3; i++) expect((await token('203.0.113.5')).status).toBe(200);
    const refused = await token('203.0.113.5');
    expectAsmxClientFault(
      refused,
      binding,
      bodyText(refused),
      'Too many calls of GetTokenDevice: at most 3 per minute. Try again in 43 seconds.',
    );
    expect(refused.headers['retry-after']).toBe('43');
    expect((await token('203.0.113.6')).status).toBe(200);
    expect(budgets.taken[0]).toEqual({
      key: 'PushNotificationMobile.asmx/GetTokenDevice',
      caller: '203.0.113.5',
      rule: { max: 3, windowMs: 60_000 },
    });
  });

  test('the budget of a Basic caller is counted by user, not by address', async () => {
    const auth = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
    const res = await callOp(
      withPolicy.service.app,
      binding,
      'NotificationNotes',
      'GetStudentSchool',
      { school_base_url: 'https://school-a.example', show_active: '1' },
      { from: '10.1.1.1', authorization: auth },
    );
    expect(res.status).toBe(200);
    expect(budgets.taken.at(-1)).toEqual({
      key: 'NotificationNotes.asmx/GetStudentSchool',
      caller: 'sis-alnoor',
      rule: { max: 1000, windowMs: 60_000 },
    });
  });

  test('a caller walking through student ids is refused and logged at warn; rereading the same students is not', async () => {
    const absences = (id: string) =>
      callOp(
        withPolicy.service.app,
        binding,
        'GetStudentsAbsence',
        'GetStudentsAbcenceByID',
        { STDid: id },
        { from: '198.51.100.9' },
      );
    for (const id of ['1001', '1002', '1001', '1002', '1001']) expect((await absences(id)).status).toBe(200);
    const refused = await absences('1003');
    // Refused until the guard's hour-long window ends (a run that crossed the hour once failed here).
    expect(refused.headers['retry-after']).toBe('1800');
    expectAsmxClientFault(
      refused,
      binding,
      bodyText(refused),
      'Too many different students read: at most 2 per hour. Try again in 1800 seconds.',
    );
    expect((await absences('1004')).status).toBe(500);
    expect((await absences('1001')).status).toBe(200);
    // One warn line for the walker, however often it is refused, naming the caller and none of the ids.
    const warnings = withPolicy.logs.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      caller: '198.51.100.9',
      distinct: 2,
      max: 2,
      msg: expect.stringContaining('too many distinct subjects'),
    });
    expect(JSON.stringify(warnings[0])).not.toMatch(/100[34]/);
  });

  test('every read of personal data is audited, allowed or refused, with its subject', async () => {
    const app = withPolicy.service.app;
    const auth = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
    const local = { from: '192.0.2.1' };
    // The AuthCode call reads no personal data: it has no audit entry.
    const calls: readonly (readonly [string, string, Params, CallOptions])[] = [
      [
        'NotificationNotes',
        'GetStudentSchool',
        { school_base_url: 'https://school-a.example', show_active: '1' },
        { from: '10.1.1.1', authorization: auth },
      ],
      [
        'NotificationNotes',
        'GetStudentSchool',
        { school_base_url: 'https://school-b.example', show_active: '1' },
        { from: '10.1.1.1' },
      ],
      [
        'NotificationNotes',
        'GetStudentSchool',
        { school_base_url: 'https://school-b.example', show_active: '1' },
        { from: '11.1.1.1', authorization: auth },
      ],
      ['PushNotificationMobile', 'GetTokenDevice', { id: 'dev-2001' }, local],
      ['GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' }, local],
      ['ReadNoteFromApp', 'UpdateNoteState', { STDid: '1002', note_type: 'audit' }, local],
      ['GetStudentsAudit', 'GetStudentsAudtiNote', { SubjectID: 'MATH', Class_id: '7A' }, local],
      [
        'NotificationNotes',
        'SendNotificationType',
        { id: '1001', baseUrlSchool: 'https://school-a.example', TypeNotfication: 'audit' },
        local,
      ],
      ['AuthCodeSending', 'AuthCode', { code: '1234', phone: '0944123456' }, local],
    ];
    for (const [endpoint, operation, params, options] of calls)
      await callOp(app, binding, endpoint, operation, params, options);

    const entries = audit.entries.map(({ at, ...rest }) => {
      expect(at).toBeInstanceOf(Date);
      return rest;
    });
    const entry = (
      endpoint: string,
      operation: string,
      subjectKind: string,
      subject: string | null,
      address: string,
      user: string | null,
      reason: string | null,
    ) => ({
      address,
      user,
      endpoint,
      operation,
      subjectKind,
      subject,
      outcome: reason === null ? 'allowed' : 'refused',
      reason,
    });
    expect(entries).toEqual([
      entry(
        'NotificationNotes',
        'GetStudentSchool',
        'school',
        'https://school-a.example',
        '10.1.1.1',
        'sis-alnoor',
        null,
      ),
      // Refused for the network or the credentials before the parameters are read: no subject.
      entry('NotificationNotes', 'GetStudentSchool', 'school', null, '10.1.1.1', null, 'auth'),
      entry('NotificationNotes', 'GetStudentSchool', 'school', null, '11.1.1.1', null, 'network'),
      entry('PushNotificationMobile', 'GetTokenDevice', 'device', 'dev-2001', '192.0.2.1', null, null),
      entry('GetStudentsAbsence', 'GetStudentsAbcenceByID', 'student', '1001', '192.0.2.1', null, null),
      entry('ReadNoteFromApp', 'UpdateNoteState', 'student', '1002', '192.0.2.1', null, null),
      entry('GetStudentsAudit', 'GetStudentsAudtiNote', 'class', '7A', '192.0.2.1', null, null),
      entry('NotificationNotes', 'SendNotificationType', 'student', '1001', '192.0.2.1', null, null),
    ]);
  });
});

// Found by an attacker's walk: budgets with windows of the same length shared one count.
describe('each operation has its own enumeration budget', () => {
  const policy = `default:
  allow: ["0.0.0.0/0", "::/0"]
endpoints:
  ReadNoteFromApp.asmx:
    UpdateNoteState: { enumeration: 2/1h }
  GetStudentsAbsence.asmx:
    GetStudentsAbcenceByID: { enumeration: 50/1h }
${OPEN_PERSONAL_READS(['NotificationNotes', 'PushNotificationMobile', 'GetStudentsAudit'])}`;
  let withPolicy: ServiceWithPolicy;
  beforeEach(async () => {
    withPolicy = await startWithPolicy(policy, (logger) => ({ enumeration: createEnumerationGuard({ logger }) }));
  });
  afterEach(async () => {
    await withPolicy.close();
  });
  const from = { from: '198.51.100.20' };
  const absences = (id: string) =>
    callOp(withPolicy.service.app, 'HTTP GET', 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: id }, from);
  const markRead = (id: string) =>
    callOp(
      withPolicy.service.app,
      'HTTP GET',
      'ReadNoteFromApp',
      'UpdateNoteState',
      { STDid: id, note_type: 'audit' },
      from,
    );

  test('reading absences does not spend the budget of marking notes read', async () => {
    for (const id of ['1001', '1002']) expect((await absences(id)).status).toBe(200);
    expect((await markRead('1003')).status).toBe(200);
    expect((await markRead('1004')).status).toBe(200);
    const refused = await markRead('1005');
    expect(refused.status).toBe(500);
    expect(bodyText(refused)).toMatch(/^Too many different students read: at most 2 per hour\./);
  });

  test('students read by one operation are new to another', async () => {
    for (const id of ['1001', '1002', '1003', '1004', '1005']) expect((await absences(id)).status).toBe(200);
    expect((await markRead('1001')).status).toBe(200);
    expect((await markRead('1002')).status).toBe(200);
    expect((await markRead('1003')).status).toBe(500);
    expect((await absences('1006')).status).toBe(200);
  });

  test('addresses of one IPv6 /64 are one caller: rotating through them gains no allowance', async () => {
    const markReadFrom = (id: string, address: string) =>
      callOp(
        withPolicy.service.app,
        'HTTP GET',
        'ReadNoteFromApp',
        'UpdateNoteState',
        { STDid: id, note_type: 'audit' },
        { from: address },
      );
    expect((await markReadFrom('1001', '2001:db8:1:2::a')).status).toBe(200);
    expect((await markReadFrom('1002', '2001:db8:1:2::b')).status).toBe(200);
    expect((await markReadFrom('1003', '2001:db8:1:2:ffff::c')).status).toBe(500);
    expect((await markReadFrom('1003', '2001:db8:1:3::a')).status).toBe(200);
  });
});
