// The policy's network and Basic rules over all four bindings: 403 with a
// one-line reason outside `allow`, 401 with the exact Basic challenge for
// missing, wrong or unlisted credentials, the call itself once both pass.
import { bodyText } from '../support/wire';
import {
  BINDINGS,
  OPEN_PERSONAL_READS,
  PASSWORDS,
  basic,
  callOp,
  startWithPolicy,
  usersYaml,
  type ServiceWithPolicy,
} from './support';

const CHALLENGE = 'Basic realm="Student Notification Service", charset="UTF-8"';
const SCHOOL = { school_base_url: 'https://school-a.example', show_active: '1' };

const POLICY = `${usersYaml()}networks:
  schools: ["10.20.0.0/16", "2001:db8:20::/48"]
endpoints:
  NotificationNotes.asmx:
    GetStudentSchool: { allow: [schools], auth: basic, users: [sis-alnoor] }
    SendNotificationType: { allow: [schools, "192.0.2.7"], auth: basic }
  pushnotificationmobile.asmx:
    GetTokenDevice: { allow: ["0.0.0.0/0"] }
${OPEN_PERSONAL_READS(['GetStudentsAbsence', 'GetStudentsAudit', 'ReadNoteFromApp'])}`;

let withPolicy: ServiceWithPolicy;
beforeAll(async () => {
  withPolicy = await startWithPolicy(POLICY);
});
afterAll(async () => {
  await withPolicy.close();
});

describe.each(BINDINGS)('%s', (binding) => {
  const school = (options: { from?: string; authorization?: string }) =>
    callOp(withPolicy.service.app, binding, 'NotificationNotes', 'GetStudentSchool', SCHOOL, options);

  test('a school server in the network with its user and password is answered', async () => {
    const res = await school({ from: '10.20.3.4', authorization: basic('sis-alnoor', PASSWORDS['sis-alnoor']) });
    expect(res.status).toBe(200);
    expect(bodyText(res)).toContain('Ahmad Ali');
  });

  test('without credentials: 401 with the Basic challenge and a plain-text body', async () => {
    const res = await school({ from: '10.20.3.4' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(bodyText(res)).toBe(
      'Unauthorized: this operation needs a user name and password (HTTP Basic authentication).\r\n',
    );
  });

  test('a wrong password, an unknown user or a malformed header: 401', async () => {
    for (const authorization of [
      basic('sis-alnoor', 'wrong'),
      basic('nobody', PASSWORDS['sis-alnoor']),
      'Basic !!!',
      'Bearer abc',
    ]) {
      const res = await school({ from: '10.20.3.4', authorization });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(CHALLENGE);
    }
  });

  test('a valid user that the rule does not list: 401', async () => {
    const res = await school({ from: '10.20.3.4', authorization: basic('app-gateway', PASSWORDS['app-gateway']) });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(CHALLENGE);
  });

  test('outside the allowed networks: 403 with a one-line reason, before credentials are looked at', async () => {
    for (const from of ['10.21.0.1', '2001:db8:21::1', '198.51.100.1']) {
      const res = await school({ from, authorization: basic('sis-alnoor', PASSWORDS['sis-alnoor']) });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(bodyText(res)).toBe('Forbidden: GetStudentSchool may not be called from this address.\r\n');
    }
  });

  test('IPv6 and IPv4-mapped IPv6 callers match the ranges', async () => {
    const ok = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
    expect((await school({ from: '2001:db8:20:ffff::9', authorization: ok })).status).toBe(200);
    expect((await school({ from: '::ffff:10.20.0.1', authorization: ok })).status).toBe(200);
    expect((await school({ from: '::ffff:10.99.0.1', authorization: ok })).status).toBe(403);
  });

  test('every user of the policy may call a basic rule that lists none; a single address is a /32', async () => {
    const send = (from: string, user: keyof typeof PASSWORDS) =>
      callOp(
        withPolicy.service.app,
        binding,
        'NotificationNotes',
        'SendNotificationType',
        { id: '1001', baseUrlSchool: 'https://school-a.example', TypeNotfication: 'audit' },
        { from, authorization: basic(user, PASSWORDS[user]) },
      );
    expect((await send('192.0.2.7', 'app-gateway')).status).toBe(200);
    expect((await send('10.20.0.9', 'sis-alnoor')).status).toBe(200);
    expect((await send('192.0.2.8', 'sis-alnoor')).status).toBe(403);
  });

  test('an open rule asks for nothing, and an IPv6 caller outside an IPv4-only allow list is refused', async () => {
    const token = (from: string) =>
      callOp(withPolicy.service.app, binding, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }, { from });
    expect((await token('203.0.113.5')).status).toBe(200);
    expect((await token('2001:db8::5')).status).toBe(403);
  });
});
