import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_TEMPLATES } from '../../src/domain';

describe('delivery configuration', () => {
  let dir: string;
  const file = (name: string, content: unknown) => {
    const target = path.join(dir, name);
    writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
    return target;
  };
  const pem = generateKeyPairSync('rsa', { modulusLength: 1024 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  const key = (fields: Record<string, unknown> = {}) =>
    file('key.json', {
      type: 'service_account',
      project_id: 'proj-1',
      client_email: 'a@b.iam.example',
      private_key: pem,
      ...fields,
    });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults: log providers, worker on, the AuthCode limits of the issue', () => {
    const { delivery } = loadConfig({});
    expect(delivery).toMatchObject({
      worker: true,
      push: { provider: 'log' },
      sms: { provider: 'log' },
      retry: { maxAttempts: 10, baseDelayMs: 10_000, maxDelayMs: 3_600_000 },
      leaseSeconds: 60,
      concurrency: 512,
      concurrencyFloor: 4,
      pollMs: 1000,
      timeoutMs: 10_000,
      authCodeMaxAgeSeconds: 600,
      authCodeLimits: [
        { scope: 'phone', max: 1, windowSeconds: 60 },
        { scope: 'phone', max: 3, windowSeconds: 600 },
        { scope: 'phone', max: 10, windowSeconds: 86400 },
        { scope: 'caller', max: 30, windowSeconds: 3600 },
        { scope: 'global', max: 1000, windowSeconds: 3600 },
      ],
      outboxRetentionDays: 30,
    });
    expect(delivery.smsTemplate).toContain('{code}');
    expect(delivery.notificationTemplates).toEqual(DEFAULT_TEMPLATES);
  });

  it('fcm: reads the key file, takes the project from it unless FCM_PROJECT_ID says otherwise', () => {
    const credentials = key();
    expect(loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: credentials }).delivery.push).toEqual({
      provider: 'fcm',
      credentials: {
        kind: 'file',
        json: { type: 'service_account', project_id: 'proj-1', client_email: 'a@b.iam.example', private_key: pem },
      },
      projectId: 'proj-1',
      baseUrl: 'https://fcm.googleapis.com',
      tokenUrl: null,
      http2Sessions: 4,
      name: 'default',
      maxInFlight: null,
      projects: [],
    });
    // The key file's token_uri is where its token is asked for.
    expect(
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: key({ token_uri: 'https://tokens.example/t' }) }).delivery
        .push,
    ).toMatchObject({ tokenUrl: 'https://tokens.example/t' });
    expect(
      loadConfig({
        PUSH_PROVIDER: 'fcm',
        FCM_CREDENTIALS: credentials,
        FCM_PROJECT_ID: 'other',
        FCM_BASE_URL: 'http://127.0.0.1:9000',
        FCM_TOKEN_URL: 'http://127.0.0.1:9000/token',
      }).delivery.push,
    ).toMatchObject({ projectId: 'other', baseUrl: 'http://127.0.0.1:9000', tokenUrl: 'http://127.0.0.1:9000/token' });
  });

  it('fcm: FCM_PROJECTS, or the file FCM_PROJECTS_FILE names, adds projects; a bad entry is named', () => {
    const credentials = key();
    const brandKey = file('key-a.json', {
      type: 'service_account',
      project_id: 'proj-a',
      client_email: 'a@b',
      private_key: pem,
    });
    const projects = [{ name: 'brand-a', credentials: brandKey, maxInFlight: 8 }];
    const listed = file('projects.json', projects);
    for (const variables of [{ FCM_PROJECTS: JSON.stringify(projects) }, { FCM_PROJECTS_FILE: listed }]) {
      const push = loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: credentials, ...variables }).delivery.push;
      expect(push).toMatchObject({
        name: 'default',
        projectId: 'proj-1',
        projects: [{ name: 'brand-a', projectId: 'proj-a', maxInFlight: 8, http2Sessions: 4 }],
      });
    }
    expect(() =>
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: credentials, FCM_PROJECTS: '[{"name":"a"},{"name":"a"}]' }),
    ).toThrow(/FCM_PROJECTS entry 1 \("a"\): projectId: required/);
  });

  it('webhook, http and twilio settings', () => {
    expect(
      loadConfig({
        PUSH_PROVIDER: 'webhook',
        PUSH_WEBHOOK_URL: 'https://gorush.example/api/push',
        PUSH_WEBHOOK_TOKEN: 't',
      }).delivery.push,
    ).toEqual({
      provider: 'webhook',
      url: 'https://gorush.example/api/push',
      token: 't',
    });
    expect(
      loadConfig({
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'https://sms.example/send',
        SMS_HTTP_METHOD: 'get',
        SMS_HTTP_HEADERS: '{"X-Key":"k"}',
      }).delivery.sms,
    ).toEqual({
      provider: 'http',
      url: 'https://sms.example/send',
      method: 'GET',
      format: 'form',
      headers: { 'X-Key': 'k' },
      bodyTemplate: 'to={phone}&text={text}',
      idempotencyHeader: null,
    });
    expect(
      loadConfig({
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'https://sms.example/send',
        SMS_HTTP_IDEMPOTENCY_HEADER: 'Idempotency-Key',
      }).delivery.sms,
    ).toMatchObject({ idempotencyHeader: 'idempotency-key' });
    expect(
      loadConfig({ SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example/send', SMS_HTTP_FORMAT: 'json' }).delivery
        .sms,
    ).toMatchObject({
      bodyTemplate: '{"to":"{phone}","text":"{text}"}',
    });
    expect(
      loadConfig({ SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'x', TWILIO_FROM: '+1555' })
        .delivery.sms,
    ).toEqual({
      provider: 'twilio',
      accountSid: 'AC1',
      authToken: 'x',
      from: '+1555',
      baseUrl: 'https://api.twilio.com',
    });
  });

  it('limits, templates and language from their variables', () => {
    const sms = file('sms.json', { fr: 'Votre code : {code}' });
    const notes = file('notes.json', {
      Absence: { ar: { title: 'غ', body: 'ب {name}' }, en: { title: 'A', body: 'B {name}' } },
      '*': { ar: { title: 'x', body: 'y' }, en: { title: 'X', body: 'Y' } },
    });
    const { delivery } = loadConfig({
      AUTH_CODE_LIMIT_PER_PHONE: '2/5m',
      AUTH_CODE_LIMIT_PER_CALLER: 'off',
      AUTH_CODE_LIMIT_GLOBAL: '500/1d',
      SMS_TEMPLATES: sms,
      SMS_LANGUAGE: 'FR',
      NOTIFICATION_TEMPLATES: notes,
    });
    expect(delivery.authCodeLimits).toEqual([
      { scope: 'phone', max: 2, windowSeconds: 300 },
      { scope: 'global', max: 500, windowSeconds: 86400 },
    ]);
    expect(delivery.smsTemplate).toBe('Votre code : {code}');
    expect(delivery.notificationTemplates.absence.en.title).toBe('A');
    expect(delivery.notificationTemplates['*'].en.title).toBe('X');
    expect(delivery.notificationTemplates.exam).toEqual(DEFAULT_TEMPLATES.exam);
  });

  it.each([
    [{ PUSH_PROVIDER: 'apns' }, /PUSH_PROVIDER must be log, fcm or webhook/],
    [
      { PUSH_PROVIDER: 'fcm' },
      /FCM_PROJECT_ID: required with Application Default Credentials \(FCM_CREDENTIALS unset\)/,
    ],
    [
      { PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: '/nonexistent/key.json' },
      /FCM_CREDENTIALS: cannot read \/nonexistent\/key.json \(ENOENT\)/,
    ],
    [{ PUSH_PROVIDER: 'webhook' }, /PUSH_WEBHOOK_URL: required with PUSH_PROVIDER=webhook/],
    [{ PUSH_WEBHOOK_URL: 'gorush:8088' }, /PUSH_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ SMS_PROVIDER: 'http' }, /SMS_HTTP_URL: required with SMS_PROVIDER=http/],
    [
      { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1' },
      /TWILIO_AUTH_TOKEN, TWILIO_FROM: required with SMS_PROVIDER=twilio/,
    ],
    [
      { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://s.example', SMS_HTTP_BODY: 'to={phone}' },
      /SMS_HTTP_BODY: the template must contain \{text\}/,
    ],
    [
      {
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'https://s.example',
        SMS_HTTP_FORMAT: 'json',
        SMS_HTTP_BODY: 'to={phone}&t={text}',
      },
      /SMS_HTTP_BODY: with SMS_HTTP_FORMAT=json/,
    ],
    [
      { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://s.example', SMS_HTTP_METHOD: 'GET', SMS_HTTP_FORMAT: 'json' },
      /SMS_HTTP_FORMAT: json needs SMS_HTTP_METHOD=POST/,
    ],
    [
      { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://s.example', SMS_HTTP_HEADERS: '["x"]' },
      /SMS_HTTP_HEADERS: must be a JSON object/,
    ],
    [{ SMS_HTTP_METHOD: 'PUT' }, /SMS_HTTP_METHOD must be POST or GET/],
    [{ AUTH_CODE_LIMIT_PER_PHONE: '1 per minute' }, /AUTH_CODE_LIMIT_PER_PHONE: "1 per minute" is not a limit/],
    [{ AUTH_CODE_LIMIT_GLOBAL: '0/1h' }, /AUTH_CODE_LIMIT_GLOBAL: "0\/1h" is not a limit/],
    [
      { DELIVERY_LEASE_SECONDS: '10' },
      /DELIVERY_LEASE_SECONDS: must be at least twice DELIVERY_TIMEOUT_MS \(10000 ms\)/,
    ],
    [
      { DELIVERY_RETRY_BASE_SECONDS: '60', DELIVERY_RETRY_MAX_SECONDS: '30' },
      /DELIVERY_RETRY_MAX_SECONDS: must not be less than/,
    ],
    [{ DELIVERY_CONCURRENCY: '0' }, /DELIVERY_CONCURRENCY must be between 1 and 4096/],
    [
      { DELIVERY_CONCURRENCY: '8', DELIVERY_CONCURRENCY_MIN: '16' },
      /DELIVERY_CONCURRENCY_MIN: must not be more than DELIVERY_CONCURRENCY/,
    ],
    [{ SMS_HTTP_IDEMPOTENCY_HEADER: 'Idempotency Key' }, /SMS_HTTP_IDEMPOTENCY_HEADER must be an HTTP header name/],
    [{ SMS_LANGUAGE: 'de' }, /SMS_LANGUAGE: no SMS template for "de" \(have ar, en/],
    [{ WORKER: 'sometimes' }, /WORKER must be true or false/],
  ])('refuses %p with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('explains a key file that is not a service-account key, without showing it', () => {
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: file('k.json', 'not json') })).toThrow(
      /FCM_CREDENTIALS: .*k\.json is not JSON/,
    );
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: key({ private_key: undefined }) })).toThrow(
      /has no private_key/,
    );
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: key({ type: 'authorized_user' }) })).toThrow(
      /is a "authorized_user" key, not a service_account key or an external_account file/,
    );
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: key({ project_id: undefined }) })).toThrow(
      /FCM_PROJECT_ID: required with a credentials file without project_id/,
    );
    try {
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: key({ client_email: 1 }) });
    } catch (error) {
      expect(String(error)).not.toContain('PRIVATE KEY');
    }
  });

  it('fcm: Application Default Credentials when FCM_CREDENTIALS is unset, an external-account file, checked', () => {
    expect(loadConfig({ PUSH_PROVIDER: 'fcm', FCM_PROJECT_ID: 'proj-2' }).delivery.push).toMatchObject({
      credentials: { kind: 'application_default' },
      projectId: 'proj-2',
    });
    const external = {
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: 'https://sts.googleapis.com/v1/token',
      credential_source: { file: '/var/run/secrets/token' },
    };
    expect(
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: file('wif.json', external), FCM_PROJECT_ID: 'proj-3' })
        .delivery.push,
    ).toMatchObject({ credentials: { kind: 'file', json: external }, projectId: 'proj-3' });
    expect(() =>
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: file('wif.json', { ...external, token_url: undefined }) }),
    ).toThrow(/is an external_account file without token_url/);
    expect(() =>
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: file('wif.json', { ...external, credential_source: null }) }),
    ).toThrow(/is an external_account file without credential_source/);
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_CREDENTIALS: file('wif.json', external) })).toThrow(
      /FCM_PROJECT_ID: required with a credentials file without project_id/,
    );
  });

  it('refuses template files that do not fit, naming the file and the place', () => {
    expect(() => loadConfig({ SMS_TEMPLATES: file('s.json', { ar: 'no code here' }) })).toThrow(
      /SMS_TEMPLATES: .*s\.json at ar: a template without \{code\}/,
    );
    expect(() => loadConfig({ NOTIFICATION_TEMPLATES: file('n.json', { absence: { ar: { title: 'x' } } }) })).toThrow(
      /NOTIFICATION_TEMPLATES: .*n\.json at absence\.ar\.body/,
    );
  });

  it('takes message options in the templates file, strictly checked, and the urgent types', () => {
    const en = { title: 't', body: 'b' };
    const withOptions = file('o.json', {
      absence: { ar: en, en, options: { android: { channelId: 'absence' }, apns: { badge: 1 } } },
    });
    expect(loadConfig({ NOTIFICATION_TEMPLATES: withOptions }).delivery.notificationTemplates.absence.options).toEqual({
      android: { channelId: 'absence' },
      apns: { badge: 1 },
    });
    expect(() =>
      loadConfig({
        NOTIFICATION_TEMPLATES: file('p.json', { note: { ar: en, en, options: { android: { ttl: 60 } } } }),
      }),
    ).toThrow(/NOTIFICATION_TEMPLATES: .*p\.json at note\.options\.android/);
    expect(() =>
      loadConfig({ NOTIFICATION_TEMPLATES: file('q.json', { note: { ar: en, en, options: { ttlSeconds: 9e9 } } }) }),
    ).toThrow(/ttlSeconds must be at most 2419200/);
    expect(loadConfig({}).delivery.urgentTypes).toEqual(new Set());
    expect(loadConfig({ URGENT_NOTIFICATION_TYPES: ' Absence, exam ,' }).delivery.urgentTypes).toEqual(
      new Set(['absence', 'exam']),
    );
    expect(() => loadConfig({ URGENT_NOTIFICATION_TYPES: `absence,${'x'.repeat(65)}` })).toThrow(
      /URGENT_NOTIFICATION_TYPES: 1 of the types are not type names/,
    );
  });

  it('names every bad variable at once, with the rest of the configuration', () => {
    expect(() => loadConfig({ PORT: 'x', PUSH_PROVIDER: 'fcm', SMS_PROVIDER: 'http' })).toThrow(
      /PORT[\s\S]*FCM_CREDENTIALS[\s\S]*SMS_HTTP_URL/,
    );
  });

  it('OUTBOX_RETENTION_DAYS: days, or off; never shorter than the longest AuthCode limit window', () => {
    expect(loadConfig({ OUTBOX_RETENTION_DAYS: '7' }).delivery.outboxRetentionDays).toBe(7);
    expect(loadConfig({ OUTBOX_RETENTION_DAYS: 'OFF' }).delivery.outboxRetentionDays).toBeNull();
    for (const bad of ['0', '-1', '2.5', 'week', '3651']) {
      expect(() => loadConfig({ OUTBOX_RETENTION_DAYS: bad })).toThrow(
        /OUTBOX_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off/,
      );
    }
    expect(() => loadConfig({ OUTBOX_RETENTION_DAYS: '1', AUTH_CODE_LIMIT_PER_PHONE: '20/7d' })).toThrow(
      'OUTBOX_RETENTION_DAYS: must cover the longest AuthCode limit window (604800 s), whose codes the limits count',
    );
    expect(
      loadConfig({ OUTBOX_RETENTION_DAYS: '7', AUTH_CODE_LIMIT_PER_PHONE: '20/7d' }).delivery.outboxRetentionDays,
    ).toBe(7);
  });
});
