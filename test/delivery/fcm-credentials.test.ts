// FCM's access token through google-auth-library (docs/delivery.md#fcm-credentials),
// never reaching the internet: a service-account key file whose token_uri is
// a local fake, Application Default Credentials found by
// GOOGLE_APPLICATION_CREDENTIALS, and workload identity federation (an
// external-account file whose token_url is a local fake STS, trading a token
// read from a file). Each request's shape is checked as Google's endpoints
// would; the token is cached and minted again after invalidate().
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokenSource } from '../../src/delivery/push/fcm/access-token';
import { FakeHttpServer, type RecordedRequest } from './support/fake-http-server';
import { startFakeFcm, type FakeFcm } from './support/fake-fcm';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const AUDIENCE = '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/schools/providers/k8s';

describe('FCM access tokens through google-auth-library', () => {
  let fcm: FakeFcm;
  let dir: string;
  beforeEach(async () => {
    fcm = await startFakeFcm();
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-fcm-credentials-'));
  });
  afterEach(async () => {
    await fcm.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a key file: the JWT bearer grant at the key file's token_uri, cached, minted again after a 401", async () => {
    const tokens = new AccessTokenSource({
      credentials: fcm.credentials,
      tokenUrl: fcm.account.tokenUri,
      timeoutMs: 5000,
    });
    expect(await tokens.get()).toEqual({ ok: true, token: 'access-1' });
    expect(await tokens.get()).toEqual({ ok: true, token: 'access-1' });
    expect(fcm.tokenRequests).toEqual([
      {
        iss: fcm.account.clientEmail,
        scope: SCOPE,
        aud: 'https://oauth2.googleapis.com/token',
        iat: expect.any(Number),
        exp: expect.any(Number),
        grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      },
    ]);
    tokens.invalidate('access-1');
    expect(await tokens.get()).toEqual({ ok: true, token: 'access-2' });
    expect(fcm.tokenRequests).toHaveLength(2);
  });

  it('a refused key: a retryable failure naming the endpoint, never the key nor the assertion', async () => {
    const refusing = await FakeHttpServer.start();
    try {
      refusing.answerByDefault({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' },
      });
      const tokens = new AccessTokenSource({
        credentials: fcm.credentials,
        tokenUrl: `${refusing.url}/token`,
        timeoutMs: 5000,
      });
      const result = await tokens.get();
      expect(result).toMatchObject({ ok: false, code: 'oauth_refused', retryable: true });
      expect(refusing.requests.length).toBeGreaterThan(0);
      const assertion = new URLSearchParams(refusing.requests[0]?.body).get('assertion') ?? '';
      expect(assertion.length).toBeGreaterThan(100);
      expect(JSON.stringify(result)).not.toContain('PRIVATE KEY');
      expect(JSON.stringify(result)).not.toContain(assertion.slice(0, 40));
    } finally {
      await refusing.close();
    }
  });

  it('Application Default Credentials: the key file GOOGLE_APPLICATION_CREDENTIALS names, its token at FCM_TOKEN_URL', async () => {
    const before = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    process.env.GOOGLE_APPLICATION_CREDENTIALS = fcm.writeKeyFile(dir);
    try {
      const tokens = new AccessTokenSource({
        credentials: { kind: 'application_default' },
        tokenUrl: fcm.account.tokenUri,
        timeoutMs: 5000,
      });
      expect(await tokens.get()).toEqual({ ok: true, token: 'access-1' });
      expect(fcm.tokenRequests).toEqual([expect.objectContaining({ iss: fcm.account.clientEmail, scope: SCOPE })]);
    } finally {
      if (before === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = before;
    }
  });

  it('workload identity federation: the platform token from its file traded at the STS token_url', async () => {
    const sts = await FakeHttpServer.start();
    try {
      let issued = 0;
      const exchanges: RecordedRequest[] = [];
      sts.route((request) =>
        request.url === '/v1/token' && exchanges.push(request) > 0
          ? {
              status: 200,
              body: {
                access_token: `federated-${++issued}`,
                issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
                token_type: 'Bearer',
                expires_in: 3600,
              },
            }
          : undefined,
      );
      const subjectToken = path.join(dir, 'token');
      writeFileSync(subjectToken, 'platform-issued-jwt');
      const tokens = new AccessTokenSource({
        credentials: {
          kind: 'file',
          json: {
            type: 'external_account',
            audience: AUDIENCE,
            subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
            token_url: `${sts.url}/v1/token`,
            credential_source: { file: subjectToken },
          },
        },
        // A service account's endpoint: an external account uses its own token_url.
        tokenUrl: fcm.account.tokenUri,
        timeoutMs: 5000,
      });
      // The library's fromJSON prints a warning on every client it makes; ours are made without it.
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        expect(await tokens.get()).toEqual({ ok: true, token: 'federated-1' });
        expect(warn).not.toHaveBeenCalled();
      } finally {
        warn.mockRestore();
      }
      expect(await tokens.get()).toEqual({ ok: true, token: 'federated-1' });
      expect(fcm.server.requests).toHaveLength(0);
      expect(exchanges).toHaveLength(1);
      const [exchange] = exchanges;
      expect(exchange?.method).toBe('POST');
      expect(Object.fromEntries(new URLSearchParams(exchange?.body))).toEqual({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        audience: AUDIENCE,
        scope: SCOPE,
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        subject_token: 'platform-issued-jwt',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      });
      tokens.invalidate('federated-1');
      expect(await tokens.get()).toEqual({ ok: true, token: 'federated-2' });
    } finally {
      await sts.close();
    }
  });
});
