import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createPushProvider, createSmsProvider } from '../../src/delivery';
import { PUSH_PROVIDERS, SMS_PROVIDERS } from '../../src/delivery/provider-registry';
import { capturingLogger } from '../support/logs';

// The registry (src/delivery/provider-registry.ts) is what the configuration
// and the wiring go through; these hold for whatever providers it lists.
describe('provider registry', () => {
  const { logger } = capturingLogger();
  const channels = [
    ['PUSH_PROVIDER', PUSH_PROVIDERS],
    ['SMS_PROVIDER', SMS_PROVIDERS],
  ] as const;

  it('names each provider once per channel, the log provider first (the default)', () => {
    for (const [, descriptors] of channels) {
      const names = descriptors.map((descriptor) => descriptor.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names[0]).toBe('log');
    }
  });

  it('declares each variable once: one provider never reads another one’s, nor the variables that choose them', () => {
    const variables = [...PUSH_PROVIDERS, ...SMS_PROVIDERS].flatMap((descriptor) => Object.keys(descriptor.env));
    expect(new Set(variables).size).toBe(variables.length);
    expect(variables).not.toContain('PUSH_PROVIDER');
    expect(variables).not.toContain('SMS_PROVIDER');
  });

  it('an unknown provider is refused with every registered name in the message', () => {
    for (const [variable, descriptors] of channels) {
      let message = '';
      try {
        loadConfig({ [variable]: 'carrier-pigeon' });
      } catch (error) {
        message = String(error);
      }
      expect(message).toContain(`${variable}: ${variable} must be `);
      for (const descriptor of descriptors) expect(message).toContain(descriptor.name);
    }
  });

  describe('wiring', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'sns-registry-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const keyFile = () => {
      const pem = generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const file = path.join(dir, 'key.json');
      writeFileSync(
        file,
        JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'a@b.iam.example', private_key: pem }),
      );
      return file;
    };

    it.each<[Record<string, string>, string, string]>([
      [{}, 'log', 'log'],
      [
        {
          PUSH_PROVIDER: 'webhook',
          PUSH_WEBHOOK_URL: 'https://g.example/push',
          SMS_PROVIDER: 'twilio',
          TWILIO_ACCOUNT_SID: 'AC1',
          TWILIO_AUTH_TOKEN: 't',
          TWILIO_FROM: '+1555',
        },
        'webhook',
        'twilio',
      ],
      [
        {
          PUSH_PROVIDER: 'fcm',
          FCM_CREDENTIALS: 'KEY',
          FCM_BASE_URL: 'http://127.0.0.1:9',
          SMS_PROVIDER: 'http',
          SMS_HTTP_URL: 'https://s.example/send',
        },
        'fcm',
        'http',
      ],
    ])('creates the chosen providers from %p', (env, push, sms) => {
      const { delivery } = loadConfig('FCM_CREDENTIALS' in env ? { ...env, FCM_CREDENTIALS: keyFile() } : env);
      expect(createPushProvider(delivery.push, delivery.timeoutMs, logger).name).toBe(push);
      expect(createSmsProvider(delivery.sms, delivery.timeoutMs, logger).name).toBe(sms);
    });
  });
});
