// A fake FCM HTTP v1 endpoint and OAuth2 token endpoint on loopback, and a
// service-account key whose token_uri points at it. The token endpoint checks
// the request as Google's does: a form with the JWT bearer grant and an
// assertion signed RS256 by the key.
import type { FcmCredentials } from '../../../src/delivery/push/fcm/access-token';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { refuseMisplacedFields } from './fcm-message-shape';
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

/** `projectId` and `tokenPrefix` tell two fakes apart (several FCM projects at once). */
export async function startFakeFcm(
  options: { readonly projectId?: string; readonly tokenPrefix?: string } = {},
): Promise<FakeFcm> {
  const projectId = options.projectId ?? PROJECT;
  const tokenPrefix = options.tokenPrefix ?? 'access';
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
    return {
      status: 200,
      body: { access_token: `${tokenPrefix}-${++issued}`, expires_in: 3600, token_type: 'Bearer' },
    };
  });
  // A send whose message FCM would refuse for its shape gets FCM's 400 (fcm-message-shape.ts).
  server.route(refuseMisplacedFields);
  server.answerByDefault({ status: 200, body: { name: `projects/${projectId}/messages/1` } });
  const account: FakeAccount = {
    clientEmail: 'notify@test.iam.example',
    projectId,
    tokenUri: `${server.url}/token`,
  };
  const keyFile = {
    type: 'service_account',
    project_id: projectId,
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

/** One send the fake took, for the scale-out test and scripts/bench-scale-out.ts. */
export interface Send {
  readonly id: string;
  readonly type: string;
  /** The access token the worker sent: each worker process mints its own. */
  readonly worker: string;
  readonly start: number;
  /** When it was answered; Infinity until then. */
  end: number;
}

/**
 * Answers each send after `delayMs()` (by default a few ms, so that sends are
 * under way when a worker dies) and records who sent what, when.
 */
export function recordSends(fcm: FakeFcm, delayMs: () => number = () => 5 + Math.random() * 15): Send[] {
  const sends: Send[] = [];
  fcm.server.route((request: RecordedRequest) => {
    if (!request.url.endsWith(SEND_PATH)) return undefined;
    const message = (JSON.parse(request.body) as { message: { data: Record<string, string> } }).message;
    const send: Send = {
      id: message.data.notificationId ?? '',
      type: message.data.type ?? '',
      worker: String(request.headers.authorization),
      start: request.receivedAt,
      end: Infinity,
    };
    sends.push(send);
    const later = new Promise<Answer>((resolve) =>
      setTimeout(() => {
        send.end = Date.now();
        resolve({ status: 200, body: { name: `projects/${PROJECT}/messages/${sends.length}` } });
      }, delayMs()),
    );
    // A route may answer later, as FakeHttpServer's scripted answers do; Route's type names only the immediate ones.
    return later as unknown as Answer;
  });
  return sends;
}

/** Pairs of sends of one message whose times overlap: two workers sending it at once. */
export function overlaps(sends: readonly Send[]): number {
  const byId = new Map<string, Send[]>();
  for (const send of sends) byId.set(send.id, [...(byId.get(send.id) ?? []), send]);
  let count = 0;
  for (const list of byId.values()) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) if (sorted[i].start < sorted[i - 1].end) count++;
  }
  return count;
}
