// What the policy does around the calls: ?wsdl, ?disco and help pages follow
// their endpoint's default rule (or `documents: open`), /healthz and /readyz
// never pass it, PUBLIC_BASE_URL replaces the caller's Host, the service reads
// ACCESS_POLICY at start and again on reload.
import { ConfigError, loadConfig } from '../../src/config';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { sqliteVariant } from '../support/stores';
import { bodyText, call } from '../support/wire';
import {
  OPEN_PERSONAL_READS,
  PASSWORDS,
  basic,
  callOp,
  policyFile,
  startWithPolicy,
  usersYaml,
  type ServiceWithPolicy,
  type PolicyFixture,
} from './support';

const CHALLENGE = 'Basic realm="Schools", charset="UTF-8"';
const LOCKED = `${usersYaml()}realm: Schools
endpoints:
  NotificationNotes.asmx:
    default: { auth: basic, allow: ["10.0.0.0/8", "::1/128", "127.0.0.1"] }
${OPEN_PERSONAL_READS(['PushNotificationMobile', 'GetStudentsAbsence', 'GetStudentsAudit', 'ReadNoteFromApp'])}`;

describe('documents follow their endpoint default rule', () => {
  let withPolicy: ServiceWithPolicy;
  beforeAll(async () => {
    withPolicy = await startWithPolicy(LOCKED);
  });
  afterAll(async () => {
    await withPolicy.close();
  });
  const get = (url: string, from: string, authorization?: string) => {
    const test = call(withPolicy.service.app).get(url).set('X-Forwarded-For', from);
    return authorization === undefined ? test : test.set('Authorization', authorization);
  };

  test.each([
    '/NotificationNotes.asmx?wsdl',
    '/NotificationNotes.asmx?disco',
    '/NotificationNotes.asmx',
    '/NotificationNotes.asmx?op=GetStudentSchool',
  ])('%s', async (url) => {
    const missing = await get(url, '10.0.0.1');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(CHALLENGE);
    expect((await get(url, '10.0.0.1', basic('sis-alnoor', 'wrong'))).status).toBe(401);
    const outside = await get(url, '192.0.2.1', basic('sis-alnoor', PASSWORDS['sis-alnoor']));
    expect(outside.status).toBe(403);
    expect(bodyText(outside)).toBe('Forbidden: this service description may not be read from this address.\r\n');
    expect((await get(url, '10.0.0.1', basic('sis-alnoor', PASSWORDS['sis-alnoor']))).status).toBe(200);
  });

  test('another endpoint, and the list of endpoints, follow their own (open) defaults', async () => {
    expect((await get('/PushNotificationMobile.asmx?wsdl', '192.0.2.1')).status).toBe(200);
    expect((await get('/', '192.0.2.1')).status).toBe(200);
  });

  test('the endpoint default rule gates the calls too', async () => {
    const res = await callOp(
      withPolicy.service.app,
      'HTTP GET',
      'NotificationNotes',
      'GetStudentSchool',
      { school_base_url: 'https://school-a.example', show_active: '1' },
      { from: '10.0.0.1' },
    );
    expect(res.status).toBe(401);
  });
});

test('documents: open serves documents to anyone while the calls stay locked', async () => {
  const withPolicy = await startWithPolicy(`documents: open\n${LOCKED}`);
  try {
    for (const url of [
      '/NotificationNotes.asmx?wsdl',
      '/NotificationNotes.asmx?disco',
      '/NotificationNotes.asmx?op=GetStudentSchool',
    ]) {
      expect((await call(withPolicy.service.app).get(url).set('X-Forwarded-For', '192.0.2.1')).status).toBe(200);
    }
    const res = await callOp(
      withPolicy.service.app,
      'SOAP 1.1',
      'NotificationNotes',
      'GetStudentSchool',
      { school_base_url: 'https://school-a.example', show_active: '1' },
      { from: '192.0.2.1' },
    );
    expect(res.status).toBe(403);
  } finally {
    await withPolicy.close();
  }
});

// A policy that restricts nobody's address (budgets only): the documents are open to every caller.
const BUDGETED = 'default: { limit: 1000/1m }\n';

describe('PUBLIC_BASE_URL', () => {
  test('the WSDL, disco and help pages name it whatever Host the caller sent', async () => {
    const withPolicy = await startWithPolicy(BUDGETED, {}, { publicBaseUrl: 'https://sns.example.org/api' });
    try {
      const get = (url: string) =>
        call(withPolicy.service.app)
          .get(url)
          .set('Host', 'attacker.example')
          .set('X-Forwarded-Host', 'attacker.example');
      const wsdl = bodyText(await get('/NotificationNotes.asmx?wsdl'));
      // The four ports' addresses (http:operation locations are relative).
      expect(wsdl.match(/location="[^"/][^"]*"/g)).toEqual(
        Array(4).fill('location="https://sns.example.org/api/NotificationNotes.asmx"'),
      );
      expect(wsdl).not.toContain('attacker');
      const disco = bodyText(await get('/NotificationNotes.asmx?disco'));
      expect(disco).toContain('ref="https://sns.example.org/api/NotificationNotes.asmx?wsdl"');
      expect(disco).not.toContain('attacker');
      const page = bodyText(await get('/NotificationNotes.asmx?op=GetStudentSchool'));
      expect(page).toContain('Host: sns.example.org');
      expect(page).toContain('POST /api/NotificationNotes.asmx HTTP/1.1');
      expect(page).not.toContain('attacker');
    } finally {
      await withPolicy.close();
    }
  });

  test("without it the caller's Host is used, as before", async () => {
    const withPolicy = await startWithPolicy(BUDGETED);
    try {
      const wsdl = bodyText(
        await call(withPolicy.service.app).get('/NotificationNotes.asmx?wsdl').set('Host', 'sis.school-a.example:8080'),
      );
      expect(wsdl).toContain('location="http://sis.school-a.example:8080/NotificationNotes.asmx"');
    } finally {
      await withPolicy.close();
    }
  });

  test('is checked at start', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://sns.example.org/' }).publicBaseUrl).toBe('https://sns.example.org');
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://10.0.0.5:8080/sns' }).publicBaseUrl).toBe('http://10.0.0.5:8080/sns');
    expect(loadConfig({}).publicBaseUrl).toBeNull();
    for (const bad of [
      'sns.example.org',
      'ftp://sns.example.org',
      'https://sns.example.org/?a=1',
      'https://u:p@sns.example.org',
      'https://sns.example.org/#x',
    ]) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'nope' })).toThrow(/PUBLIC_BASE_URL must be an absolute http/);
  });
});

describe('the service with ACCESS_POLICY', () => {
  const variant = sqliteVariant();
  let policy: PolicyFixture;
  let service: OperatedService;
  beforeEach(async () => {
    policy = policyFile(`${usersYaml()}default:\n  allow: ["10.0.0.0/8"]\n`);
    service = await startOperatedService(variant, { ACCESS_POLICY: policy.file, TRUST_PROXY: 'true' });
  });
  afterEach(async () => {
    await service.stop();
    policy.cleanup();
  });

  test('health, readiness and metrics are never gated; calls, documents and help pages are', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics'])
      expect((await call(service.app).get(url).set('X-Forwarded-For', '192.0.2.1')).status).toBe(200);
    for (const url of [
      '/',
      '/PushNotificationMobile.asmx?wsdl',
      '/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001',
    ]) {
      expect((await call(service.app).get(url).set('X-Forwarded-For', '192.0.2.1')).status).toBe(403);
    }
    expect(
      (
        await call(service.app)
          .get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')
          .set('X-Forwarded-For', '10.9.9.9')
      ).status,
    ).toBe(200);
    expect(service.logs.some((l) => l.msg === 'access policy in force')).toBe(true);
    expect(service.logs.some((l) => String(l.msg).startsWith('ACCESS_POLICY is not set'))).toBe(false);
  });

  test('reload: a new policy applies to the next calls, a bad file is logged and the old one kept, calls under way finish', async () => {
    const token = (from: string) =>
      call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001').set('X-Forwarded-For', from);
    expect((await token('192.0.2.1')).status).toBe(403);

    policy.write(`${usersYaml()}default:\n  allow: ["192.0.2.0/24"]\n`);
    const during = Array.from({ length: 20 }, () => token('192.0.2.1'));
    expect(service.access?.reload()).toBe(true);
    const answered = await Promise.all(during);
    expect(answered.every((res) => res.status === 200 || res.status === 403)).toBe(true);
    expect((await token('192.0.2.1')).status).toBe(200);
    expect((await token('10.9.9.9')).status).toBe(403);

    policy.write('default:\n  allow: [nowhere]\n');
    expect(service.access?.reload()).toBe(false);
    expect((await token('192.0.2.1')).status).toBe(200);
    const error = service.logs.find((l) => l.level === 50 && String(l.msg).includes('not reloaded'));
    expect(String(error?.problems)).toContain(
      'default.allow[0]: "nowhere" is neither a CIDR range nor a name under networks',
    );
  });
});

test('without ACCESS_POLICY: one warning that every operation is open, and calls as before', async () => {
  const service = await startOperatedService(sqliteVariant());
  try {
    const warnings = service.logs.filter(
      (l) => l.level === 40 && String(l.msg).startsWith('ACCESS_POLICY is not set: every operation is open'),
    );
    expect(warnings).toHaveLength(1);
    expect(service.access).toBeNull();
    expect((await call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')).status).toBe(200);
  } finally {
    await service.stop();
  }
});

test('a bad ACCESS_POLICY stops the start with the problems', async () => {
  const policy = policyFile('default: { auth: basic }\n');
  try {
    await expect(startOperatedService(sqliteVariant(), { ACCESS_POLICY: policy.file })).rejects.toThrow(
      /default: auth is basic but the policy has no users/,
    );
    await expect(startOperatedService(sqliteVariant(), { ACCESS_POLICY: `${policy.file}.missing` })).rejects.toThrow(
      /cannot read .*ENOENT/,
    );
  } finally {
    policy.cleanup();
  }
});

test('with a policy, createService wires the real limits: budgets enforced, reads audited in the store, written out on close', async () => {
  const policy = policyFile('default: { limit: 1/1h }\n');
  const service = await startOperatedService(sqliteVariant(), { ACCESS_POLICY: policy.file });
  try {
    const token = () => call(service.app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001');
    expect((await token()).status).toBe(200);
    const refused = await token();
    expect(refused.status).toBe(500);
    expect(bodyText(refused)).toMatch(
      /^Too many calls of GetTokenDevice: at most 1 per hour\. Try again in \d+ seconds\.\r\n$/,
    );
    // close() stops the limits before the store goes: the buffered entries are written.
    await service.close();
    const { items } = await service.testStore.store.admin.listAuditEntries({ limit: 10, offset: 0 });
    const entries = items.map(({ operation, subjectKind, subject, outcome, reason }) => ({
      operation,
      subjectKind,
      subject,
      outcome,
      reason,
    }));
    // Two calls may fall in one millisecond: compared in a fixed order.
    expect(entries.sort((a, b) => a.outcome.localeCompare(b.outcome)).reverse()).toEqual([
      { operation: 'GetTokenDevice', subjectKind: 'device', subject: 'dev-1001', outcome: 'refused', reason: 'limit' },
      { operation: 'GetTokenDevice', subjectKind: 'device', subject: 'dev-1001', outcome: 'allowed', reason: null },
    ]);
  } finally {
    await service.stop();
    policy.cleanup();
  }
});
