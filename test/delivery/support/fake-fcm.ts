// A fake FCM HTTP v1 endpoint and OAuth2 token endpoint on loopback, and a
// service-account key whose token_uri points at it. The token endpoint checks
// the request as Google's does: a form with the JWT bearer grant and an
// assertion signed RS256 by the key.
import type { FcmCredentials } from '../../../src/delivery/push/fcm/access-token';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FakeHttpServer, type Answer, type RecordedRequest } from './fake-http-server';

export const PROJECT = 'school-notify-test';
export const SEND_PATH = `/v1/projects/${PROJECT}/messages:send`;

// Generated once per test file: RSA key generation is the slow part.
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The key the fake trusts, as a key file names it. */
export interface FakeAccount {
  readonly clientEmail: string;
  readonly projectId: string;
  readonly tokenUri: string;
}

export interface FakeFcm {
  readonly server: FakeHttpServer;
  readonly account: FakeAccount;
  /** The key file's JSON, as FCM_CREDENTIALS would give it. */
  readonly credentials: FcmCredentials;
  /** The claims of the assertions received at the token endpoint, each verified, with the request's grant type. */
  readonly tokenRequests: Array<{
    iss: string;
    scope: string;
    aud: string;
    iat: number;
    exp: number;
    grantType: string;
  }>;
  /** The send requests' messages. */
  messages(): Array<{ token: string; notification: { title: string; body: string }; data: Record<string, string> }>;
  /** Writes the key file (for a process that reads FCM_CREDENTIALS). */
  writeKeyFile(dir: string): string;
}

export async function startFakeFcm(): Promise<FakeFcm> {
  const server = await FakeHttpServer.start();
  const tokenRequests: FakeFcm['tokenRequests'] = [];
  let issued = 0;
  server.route((request) => {
    if (request.url !== '/token') return undefined;
    const form = new URLSearchParams(request.body);
    const grantType = form.get('grant_type') ?? '';
    if (grantType !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    const assertion = form.get('assertion') ?? '';
    const [header, claims, signature] = assertion.split('.');
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(keys.publicKey, signature ?? '', 'base64url');
    if (!valid) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } };
    tokenRequests.push({
      ...(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString('utf8')) as Omit<
        FakeFcm['tokenRequests'][number],
        'grantType'
      >),
      grantType,
    });
    return { status: 200, body: { access_token: `access-${++issued}`, expires_in: 3600, token_type: 'Bearer' } };
  });
  server.answerByDefault({ status: 200, body: { name: `projects/${PROJECT}/messages/1` } });
  const account: FakeAccount = {
    clientEmail: 'notify@test.iam.example',
    projectId: PROJECT,
    tokenUri: `${server.url}/token`,
  };
  const keyFile = {
    type: 'service_account',
    project_id: PROJECT,
    client_email: account.clientEmail,
    private_key: PRIVATE_PEM,
    token_uri: account.tokenUri,
  };
  return {
    server,
    account,
    credentials: { kind: 'file', json: keyFile },
    tokenRequests,
    messages: () =>
      server.requests.map(
        (r: RecordedRequest) => (JSON.parse(r.body) as { message: ReturnType<FakeFcm['messages']>[number] }).message,
      ),
    writeKeyFile(dir) {
      const file = path.join(dir, 'service-account.json');
      writeFileSync(file, JSON.stringify(keyFile));
      return file;
    },
  };
}

/** An FCM error answer as Google writes it. */
export function fcmError(
  httpStatus: number,
  status: string,
  fcmCode: string | null,
  message = 'error',
  headers: Record<string, string> = {},
): Answer {
  const details =
    fcmCode === null ? [] : [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: fcmCode }];
  return { status: httpStatus, headers, body: { error: { code: httpStatus, message, status, details } } };
}
