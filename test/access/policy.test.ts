// The policy file: what it accepts, how rules merge, and errors that name the bad key.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PolicyError, parsePolicy, parseRate } from '../../src/access';
import { HASHES, usersYaml } from './support';

function problems(text: string, file = 'p.yaml'): string {
  try {
    parsePolicy(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError);
    return (err as Error).message;
  }
  throw new Error('the policy was accepted');
}

describe('policy validation', () => {
  // An empty policy once started the service with every operation open and the log saying "access policy in force".
  test.each([
    ['an empty file', ''],
    ['a file of comments', '# to do: write the rules\n   # later\n'],
    ['an empty mapping', '{}'],
  ])('%s is refused, naming the file', (_, text) => {
    expect(problems(text, '/etc/sns/policy.yaml')).toMatch(
      /^ACCESS_POLICY: \/etc\/sns\/policy\.yaml sets nothing \(it is empty or holds only comments\)/,
    );
    expect(problems(text, 'p.json')).toMatch(/^ACCESS_POLICY: p\.json (sets nothing|is not valid JSON)/);
  });

  test('fails closed: an operation reading personal data left open to everyone without budgets is refused, each one named', () => {
    const message = problems('realm: Schools\n');
    for (const [endpoint, op] of [
      ['NotificationNotes.asmx', 'GetStudentSchool'],
      ['PushNotificationMobile.asmx', 'GetTokenDevice'],
      ['GetStudentsAbsence.asmx', 'GetStudentsAbcenceByID'],
      ['GetStudentsAudit.asmx', 'GetStudentsAudtiNote'],
      ['ReadNoteFromApp.asmx', 'UpdateNoteState'],
    ]) {
      expect(message).toContain(
        `\n  endpoints.${endpoint}.${op}: ${op} reads personal data and would be open to every address without credentials or budgets;`,
      );
    }
    // Operations that read no personal data may stay open without a word.
    expect(message).not.toMatch(/AuthCode:|SendNotificationType:/);
  });

  // `default: {allow: ["::/0"]}` once started with "open":[] and gave a push token to any IPv4 caller:
  // only the literal pair 0.0.0.0/0 and ::/0 counted as everyone.
  describe('open to everyone is what the addresses let in, however they are written', () => {
    const CALLERS = [
      '203.0.113.7',
      '::ffff:203.0.113.7',
      '10.1.2.3',
      '255.255.255.255',
      '2001:db8::1',
      '::1',
      'fe80::1',
    ];
    // Every IPv6 address but ::ffff:0:0/96, where IPv4 callers are: the sibling block at each of its 96 bits.
    const IPV6_BUT_IPV4_MAPPED = Array.from({ length: 96 }, (_, bit) => {
      const at = bit + 1;
      const prefix = ((0xffffn << 32n) >> BigInt(128 - at)) ^ 1n;
      const groups = (prefix << BigInt(128 - at)).toString(16).padStart(32, '0').match(/.{4}/g) as string[];
      return `${groups.join(':')}/${at}`;
    });
    const policyOf = (allow: string[], extra = '') =>
      `networks: { halves: ["::/1", "8000::/1"] }\ndefault: { allow: ${JSON.stringify(allow)} }\n${extra}`;

    test.each([
      ['::/0', ['::/0']],
      ['0.0.0.0/0 and ::/0', ['0.0.0.0/0', '::/0']],
      ['a network of the two IPv6 halves', ['halves']],
      ['the two IPv6 halves', ['::/1', '8000::/1']],
      ['::ffff:0:0/96 and the IPv6 halves', ['::ffff:0:0/96', '::/1', '8000::/1']],
      ['the IPv4 halves and the IPv6 halves', ['0.0.0.0/1', '128.0.0.0/1', '::/1', '8000::/1']],
      ['0.0.0.0/0 and the IPv6 halves', ['0.0.0.0/0', '::/1', '8000::/1']],
      ['10.0.0.0/8 beside ::/0', ['10.0.0.0/8', '::/0']],
      ['0.0.0.0/0 and every IPv6 block but the IPv4-mapped one', ['0.0.0.0/0', ...IPV6_BUT_IPV4_MAPPED]],
    ])('%s is open: refused unless said, listed as open when said', (_, allow) => {
      expect(problems(policyOf(allow))).toContain(
        'endpoints.PushNotificationMobile.asmx.GetTokenDevice: GetTokenDevice reads personal data and would be open',
      );
      const policy = parsePolicy(
        policyOf(
          allow,
          'endpoints:\n' +
            '  NotificationNotes.asmx: { GetStudentSchool: { open: true } }\n' +
            '  PushNotificationMobile.asmx: { GetTokenDevice: { open: true } }\n' +
            '  GetStudentsAbsence.asmx: { GetStudentsAbcenceByID: { open: true } }\n' +
            '  GetStudentsAudit.asmx: { GetStudentsAudtiNote: { open: true } }\n' +
            '  ReadNoteFromApp.asmx: { UpdateNoteState: { open: true } }\n',
        ),
      );
      expect(policy.exposure.open).toContain('GetTokenDevice');
      const rule = policy.operationRule('PushNotificationMobile', 'GetTokenDevice');
      for (const caller of CALLERS) expect(rule?.allows(caller)).toBe(true);
    });

    test.each(
      (
        [
          [['0.0.0.0/0'], '2001:db8::1'],
          [['0.0.0.0/1', '128.0.0.0/1'], '2001:db8::1'],
          [['::ffff:0:0/96'], '2001:db8::1'],
          [['::/1'], 'fe80::1'],
          [['::/1', '8000::/2'], 'fe80::1'],
          [['8000::/1', '0.0.0.0/0'], '2001:db8::1'],
          [['0.0.0.0/0', '2000::/3'], '::1'],
          [['0.0.0.0/0', '::/1', 'c000::/2'], '8000::1'],
          [['0.0.0.0/1', '::ffff:128.0.0.0/98', '8000::/1'], '192.0.2.1'],
          [['::/96', '8000::/1'], '10.0.0.1'],
          [IPV6_BUT_IPV4_MAPPED, '203.0.113.7'],
        ] satisfies [string[], string][]
      ).map(([allow, outside]): [string, string[], string] => [
        allow === IPV6_BUT_IPV4_MAPPED ? 'every IPv6 block but the IPv4-mapped one' : allow.join(' and '),
        allow,
        outside,
      ]),
    )('%s is not open: started without a word, an address outside it refused', (_, allow, outside) => {
      const policy = parsePolicy(policyOf(allow));
      expect(policy.exposure.open).toEqual([]);
      const rule = policy.operationRule('PushNotificationMobile', 'GetTokenDevice');
      expect(rule?.allow).not.toBeNull();
      expect(rule?.allows(outside)).toBe(false);
    });
  });

  // A bad key once hid every address problem: the shape check failed first and the addresses were never read.
  test('names every problem: a wrong address is named beside a key of the wrong shape', () => {
    const message = problems(`realm: "say \\"hi\\""
networks:
  office: ["10.0.0.0/33", "192.0.2.0/24"]
default:
  allow: ["office", "300.1.1.1", "nowhere"]
  auth: sometimes
endpoints:
  NotificationNotes.asmx:
    GetStudentSchool: { allow: ["2001:db8::/129"], limit: lots }
`);
    expect(message).toContain('\n  realm: must not hold quotes');
    expect(message).toContain('\n  default.auth: ');
    expect(message).toContain('\n  endpoints.NotificationNotes.asmx.GetStudentSchool.limit: "lots" is not a budget');
    expect(message).toContain('\n  networks.office[0]: "10.0.0.0/33" is not an IPv4 or IPv6 address or CIDR range');
    expect(message).toContain('\n  default.allow[1]: "300.1.1.1" is neither a CIDR range nor a name under networks');
    expect(message).toContain('\n  default.allow[2]: "nowhere" is neither a CIDR range nor a name under networks');
    expect(message).toContain(
      '\n  endpoints.NotificationNotes.asmx.GetStudentSchool.allow[0]: "2001:db8::/129" is neither',
    );
    expect(message).not.toMatch(/allow\[0\]: "office"|192\.0\.2\.0/);
  });

  test('an operation may stay open when the file says so for it; the policy lists what is open and what is only budgeted', () => {
    const policy = parsePolicy(`default:
  allow: ["10.0.0.0/8"]
endpoints:
  PushNotificationMobile.asmx:
    GetTokenDevice: { allow: ["0.0.0.0/0", "::/0"], limit: 120/1m, enumeration: 50/1h }
  ReadNoteFromApp.asmx:
    UpdateNoteState: { allow: ["0.0.0.0/0", "::/0"], open: true }
  GetStudentsAbsence.asmx:
    GetStudentsAbcenceByID: { allow: ["0.0.0.0/0", "::/0"], enumeration: 50/1h }
`);
    expect(policy.operationRule('ReadNoteFromApp', 'UpdateNoteState')).toMatchObject({
      allow: null,
      auth: 'none',
      limit: null,
      enumeration: null,
    });
    expect(policy.exposure).toEqual({
      open: ['UpdateNoteState'],
      budgetedOnly: [
        { operation: 'GetStudentsAbcenceByID', limit: null, enumeration: '50/3600s' },
        { operation: 'GetTokenDevice', limit: '120/60s', enumeration: '50/3600s' },
      ],
    });
  });

  test('open is said of one operation reading personal data, not of a default or of another operation', () => {
    const message = problems(`default: { open: true }
endpoints:
  NotificationNotes.asmx:
    default: { open: true }
    AuthCode: { open: true }
`);
    expect(message).toContain('\n  default.open: open is said of one operation at a time');
    expect(message).toContain(
      '\n  endpoints.NotificationNotes.asmx.default.open: open is said of one operation at a time',
    );
    expect(message).toContain(
      '\n  endpoints.NotificationNotes.asmx.AuthCode: NotificationNotes.asmx has no operation AuthCode',
    );
  });

  test('open on an operation that reads no personal data is refused', () => {
    expect(
      problems(
        'default: { allow: ["10.0.0.0/8"] }\nendpoints:\n  AuthCodeSending.asmx:\n    AuthCode: { open: true }\n',
      ),
    ).toContain(
      'endpoints.AuthCodeSending.asmx.AuthCode.open: AuthCode reads no personal data; open is only for those that do',
    );
  });

  test('the users command checks a policy being written for its shape only', () => {
    const policy = parsePolicy(usersYaml(), 'p.yaml', { failClosed: false });
    expect(policy.users.size).toBe(2);
    expect(() => parsePolicy(usersYaml(), 'p.yaml')).toThrow(/GetStudentSchool reads personal data/);
  });

  test('each mistake is reported with the path of its key', () => {
    const message = problems(`realm: 'a"b'
documents: sometimes
users:
  alice: not-a-hash
  "bad name": "${HASHES['sis-alnoor']}"
networks:
  schools: ["10.0.0.0/33", "hello"]
default:
  auth: digest
  limit: 10 per minute
  surprise: 1
endpoints:
  NoSuch.asmx: {}
  NotificationNotes.asmx:
    getstudentschool: { auth: basic }
    GetStudentSchool: { allow: [teachers], users: [mallory] }
`);
    expect(message).toContain('ACCESS_POLICY: p.yaml is not a valid policy:');
    for (const key of [
      'realm',
      'documents',
      'users.alice',
      'users.bad name',
      'default.auth',
      'default.limit',
      'default',
    ]) {
      expect(message).toContain(`\n  ${key}: `);
    }
    expect(message).toContain('Unrecognized key: "surprise"');
    expect(message).toContain(
      '\n  default.limit: "10 per minute" is not a budget; write COUNT/DURATION such as 120/1m (units s, m, h, d; at most 30d)',
    );
  });

  test('references are checked once the shape is right: endpoints, operations, networks, users, CIDRs', () => {
    const message = problems(`${usersYaml()}networks:
  schools: ["10.0.0.0/33", "2001:db8::/48"]
endpoints:
  NoSuch.asmx: {}
  NotificationNotes.asmx:
    getstudentschool: { auth: basic }
    GetStudentSchool: { allow: [teachers, "300.1.1.1"], auth: basic, users: [mallory] }
`);
    expect(message).toContain('networks.schools[0]: "10.0.0.0/33" is not an IPv4 or IPv6 address or CIDR range');
    expect(message).toContain('endpoints.NoSuch.asmx: no such endpoint');
    expect(message).toContain(
      'endpoints.NotificationNotes.asmx.getstudentschool: NotificationNotes.asmx has no operation getstudentschool',
    );
    expect(message).toContain(
      'endpoints.NotificationNotes.asmx.GetStudentSchool.allow[0]: "teachers" is neither a CIDR range nor a name under networks',
    );
    expect(message).toContain('endpoints.NotificationNotes.asmx.GetStudentSchool.allow[1]: "300.1.1.1"');
    expect(message).toContain('endpoints.NotificationNotes.asmx.GetStudentSchool.users: no user mallory under users');
  });

  test('Basic without any user is refused, since nobody could call', () => {
    expect(problems('default: { auth: basic }')).toContain('default: auth is basic but the policy has no users');
  });

  test('invalid YAML and JSON name the file', () => {
    expect(problems('users: [unclosed', 'p.yaml')).toMatch(/^ACCESS_POLICY: p\.yaml is not valid YAML: /);
    expect(problems('{"users": ', 'p.json')).toMatch(/^ACCESS_POLICY: p\.json is not valid JSON: /);
  });

  test('JSON is read as well', () => {
    const policy = parsePolicy(
      JSON.stringify({ realm: 'Schools', users: { a: HASHES['sis-alnoor'] }, default: { auth: 'basic' } }),
      'p.json',
    );
    expect(policy.realm).toBe('Schools');
    expect(policy.operationRule('PushNotificationMobile', 'GetTokenDevice')?.auth).toBe('basic');
  });

  test('rules merge: operation over endpoint default over top default; endpoint names in any case', () => {
    const policy = parsePolicy(`${usersYaml()}default:
  allow: ["10.0.0.0/8"]
  limit: 600/1m
endpoints:
  notificationnotes.ASMX:
    default: { auth: basic, users: [sis-alnoor] }
    SendNotificationType: { limit: 5/1s, enumeration: 200/1h }
`);
    const school = policy.operationRule('NotificationNotes', 'GetStudentSchool');
    expect(school).toMatchObject({ auth: 'basic', limit: { max: 600, windowMs: 60_000 }, enumeration: null });
    expect([...(school?.users ?? [])]).toEqual(['sis-alnoor']);
    expect(school?.allow?.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(school?.allow?.check('11.1.2.3', 'ipv4')).toBe(false);
    const send = policy.operationRule('NotificationNotes', 'SendNotificationType');
    expect(send).toMatchObject({
      auth: 'basic',
      limit: { max: 5, windowMs: 1000 },
      enumeration: { max: 200, windowMs: 3_600_000 },
    });
    expect(policy.operationRule('PushNotificationMobile', 'GetTokenDevice')).toMatchObject({
      auth: 'none',
      limit: { max: 600 },
    });
    expect(policy.endpointRule('NOTIFICATIONNOTES')?.auth).toBe('basic');
  });

  test('budgets: COUNT/DURATION with s, m, h, d', () => {
    expect(parseRate('120/1m')).toEqual({ max: 120, windowMs: 60_000 });
    expect(parseRate('30/m')).toEqual({ max: 30, windowMs: 60_000 });
    expect(parseRate('200 / 1h')).toEqual({ max: 200, windowMs: 3_600_000 });
    expect(parseRate('5/2d')).toEqual({ max: 5, windowMs: 172_800_000 });
    for (const bad of ['0/1m', '10', '10/1w', '10/31d', 'ten/1m']) expect(parseRate(bad)).toBeNull();
  });
});

test('the recommended policy of docs/security.md is valid once its first user is added', () => {
  const text = readFileSync(path.join(__dirname, '../../docs/security.md'), 'utf8');
  const block = /## Recommended policy[\s\S]*?```yaml\n([\s\S]*?)```/.exec(text)?.[1];
  expect(block).toBeDefined();
  expect(() => parsePolicy(block as string)).toThrow(/auth is basic but the policy has no users/);
  const policy = parsePolicy(
    (block as string).replace('users: {}', `users: { sis-alnoor: "${HASHES['sis-alnoor']}" }`),
  );
  expect(policy.operationRule('NotificationNotes', 'GetStudentSchool')).toMatchObject({ auth: 'basic' });
  expect(policy.operationRule('GetStudentsAudit', 'GetStudentsAudtiNote')).toMatchObject({ auth: 'basic' });
  expect(policy.operationRule('PushNotificationMobile', 'GetTokenDevice')).toMatchObject({
    auth: 'none',
    limit: { max: 120 },
    enumeration: { max: 50 },
  });
  expect(policy.endpointRule('NotificationNotes')?.allow?.check('10.20.1.1', 'ipv4')).toBe(true);
  expect(policy.exposure.open).toEqual([]);
  expect(policy.exposure.budgetedOnly.map((b) => b.operation)).toEqual([
    'UpdateNoteState',
    'GetStudentsAbcenceByID',
    'GetTokenDevice',
  ]);
});
