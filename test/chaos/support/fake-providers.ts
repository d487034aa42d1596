// Fake FCM (OAuth2 token endpoint and HTTP v1 send) and a fake SMS gateway on
// one loopback server, counting every delivery: pushes by their `type` data
// field, SMS by the number sent to. Each answer comes after a short delay, so
// that a process killed mid-load has sends under way.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const PROJECT = 'chaos-test';
/** How long each answer waits (docs/chaos.md: sends are under way when a process dies). */
const ANSWER_DELAY_MS = 10;

export interface FakeProviders {
  readonly url: string;
  /** How often each push (by `type`) arrived. */
  readonly pushes: Map<string, number>;
  /** How often each SMS (by E.164 number) arrived. */
  readonly sms: Map<string, number>;
  /** The environment that points a service or worker at these fakes. */
  environment(keyDir: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeProviders(): Promise<FakeProviders> {
  const pushes = new Map<string, number>();
  const sms = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, json: unknown) =>
        setTimeout(() => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(json));
        }, ANSWER_DELAY_MS);
      if (req.url === '/token') {
        answer(200, { access_token: 'chaos-token', expires_in: 3600, token_type: 'Bearer' });
      } else if (req.url === `/v1/projects/${PROJECT}/messages:send`) {
        const type = (JSON.parse(body) as { message: { data: { type: string } } }).message.data.type;
        pushes.set(type, (pushes.get(type) ?? 0) + 1);
        answer(200, { name: `projects/${PROJECT}/messages/1` });
      } else if (req.url === '/sms') {
        const to = new URLSearchParams(body).get('to') ?? '';
        sms.set(to, (sms.get(to) ?? 0) + 1);
        answer(200, { ok: true });
      } else {
        answer(404, { error: 'not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    url,
    pushes,
    sms,
    environment(keyDir) {
      const keyFile = path.join(keyDir, 'service-account.json');
      writeFileSync(
        keyFile,
        JSON.stringify({
          type: 'service_account',
          project_id: PROJECT,
          client_email: 'chaos@test.iam.example',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          token_uri: `${url}/token`,
        }),
      );
      return {
        PUSH_PROVIDER: 'fcm',
        FCM_CREDENTIALS: keyFile,
        FCM_BASE_URL: url,
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: `${url}/sms`,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
