// Failed Basic logins over the wire (docs/security.md#failed-logins): each
// 401 says why, a caller past the failed-login throttle or its `limit`
// budget is answered with Retry-After without a check, and the valid users
// go on meanwhile.
import type { AuditEntry } from '../../src/access';
import { createCallBudgets } from '../../src/access/call-budgets';
import { bodyText } from '../support/wire';
import { BINDINGS, PASSWORDS, basic, callOp, startWithPolicy, usersYaml, type ServiceWithPolicy } from './support';

const SCHOOL = { school_base_url: 'https://school-a.example', show_active: '1' };
const POLICY = `${usersYaml()}default:
  auth: basic
endpoints:
  NotificationNotes.asmx:
    GetStudentSchool: { limit: 5/1m }
`;

let withPolicy: ServiceWithPolicy;
const audited: AuditEntry[] = [];
beforeAll(async () => {
  const audit = {
    record: (entry: AuditEntry) => void audited.push(entry),
    flush: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };
  withPolicy = await startWithPolicy(POLICY, (logger) => ({ budgets: createCallBudgets({ logger }), audit }));
});
afterAll(async () => {
  await withPolicy.close();
});

const token = (from: string, authorization?: string) =>
  callOp(
    withPolicy.service.app,
    'HTTP GET',
    'PushNotificationMobile',
    'GetTokenDevice',
    { id: 'dev-1001' },
    { from, authorization },
  );
const school = (from: string, authorization?: string) =>
  callOp(withPolicy.service.app, 'HTTP GET', 'NotificationNotes', 'GetStudentSchool', SCHOOL, { from, authorization });

describe.each(BINDINGS)('%s', (binding) => {
  const call = (from: string, authorization?: string) =>
    callOp(
      withPolicy.service.app,
      binding,
      'PushNotificationMobile',
      'GetTokenDevice',
      { id: 'dev-1001' },
      { from, authorization },
    );

  test('the 401 says whether credentials were missing, malformed or wrong, never whether the user exists', async () => {
    const text = async (authorization?: string) => {
      const res = await call('192.0.2.10', authorization);
      expect(res.status).toBe(401);
      expect(res.headers['retry-after']).toBeUndefined();
      return bodyText(res);
    };
    expect(await text()).toBe(
      'Unauthorized: this operation needs a user name and password (HTTP Basic authentication).\r\n',
    );
    const malformed =
      'Unauthorized: the Authorization header is not HTTP Basic credentials (Basic, then base64 of user:password).\r\n';
    expect(await text('Basic !!!')).toBe(malformed);
    expect(await text(`${basic('sis-alnoor', PASSWORDS['sis-alnoor'])}=junk`)).toBe(malformed);
    expect(await text(basic('sis-alnoor', `wrong ${binding}`))).toBe('Unauthorized: wrong user name or password.\r\n');
    expect(await text(basic(`nobody ${binding}`, PASSWORDS['sis-alnoor']))).toBe(
      'Unauthorized: wrong user name or password.\r\n',
    );
  });
});

test('past 10 failed logins from an address: 401 with Retry-After and no check, while another address logs in', async () => {
  for (let i = 0; i < 10; i++)
    expect((await token('198.51.100.7', basic('sis-alnoor', `guess ${i}`))).status).toBe(401);
  const res = await token('198.51.100.7', basic('app-gateway', PASSWORDS['app-gateway']));
  expect(res.status).toBe(401);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(bodyText(res)).toMatch(/^Unauthorized: too many failed logins\. Try again in \d+ seconds?\.\r\n$/);
  expect((await token('198.51.100.8', basic('app-gateway', PASSWORDS['app-gateway']))).status).toBe(200);
});

test('a limit of 5 a minute counts failed logins: the sixth try of a guessing address is refused unchecked; the valid user goes on', async () => {
  for (let i = 0; i < 5; i++)
    expect(bodyText(await school('203.0.113.9', basic('sis-alnoor', `guess ${i}`)))).toContain(
      'wrong user name or password',
    );
  const res = await school('203.0.113.9', basic('sis-alnoor', PASSWORDS['sis-alnoor']));
  expect(res.status).toBe(401);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(bodyText(res)).toMatch(
    /^Unauthorized: too many failed logins for GetStudentSchool: at most 5 per minute\. Try again in \d+ seconds?\.\r\n$/,
  );
  // The audit names the budget, not the credentials, as the reason of that refusal.
  const mine = audited.filter((entry) => entry.address === '203.0.113.9').map((entry) => entry.reason);
  expect(mine).toEqual(['auth', 'auth', 'auth', 'auth', 'auth', 'limit']);
  // Missing credentials (the first leg of a challenge) spend nothing.
  for (let i = 0; i < 6; i++)
    expect(bodyText(await school('203.0.113.10'))).toContain('needs a user name and password');
  expect((await school('203.0.113.10', basic('sis-alnoor', PASSWORDS['sis-alnoor']))).status).toBe(200);
});
