// An OAuth2 access token for FCM (docs/delivery.md#fcm-credentials) from the
// official google-auth-library: a service-account key file, an
// external-account file (workload identity federation), or Application
// Default Credentials. The library only mints tokens; its HTTP client
// (gaxios) never sends a message: the sends stay on our HTTP/2 sessions
// (fcm-provider.ts). A token is cached here until shortly before it expires,
// so that a send costs no call into the library, and concurrent senders
// share one refresh.
import {
  AwsClient,
  GoogleAuth,
  IdentityPoolClient,
  JWT,
  PluggableAuthClient,
  gaxios,
  type AuthClient,
  type AwsClientOptions,
  type ExternalAccountClientOptions,
  type IdentityPoolClientOptions,
  type PluggableAuthClientOptions,
} from 'google-auth-library';
import { failure, type SendFailure } from '../../provider';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Where the library sends a service account's signed assertion, whatever the key file says. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
// Renew this long before expiry, so that a token never lapses mid-request.
const RENEW_BEFORE_MS = 5 * 60 * 1000;
// When the library says no expiry: Google's tokens live an hour.
const DEFAULT_LIFETIME_MS = 3600 * 1000;
const MAX_PROBLEM = 300;

/** Where the credentials come from: a file's JSON (service or external account), or the environment (ADC). */
export type FcmCredentials =
  | { readonly kind: 'file'; readonly json: Readonly<Record<string, unknown>> }
  | { readonly kind: 'application_default' };

export interface AccessTokenOptions {
  readonly credentials: FcmCredentials;
  /**
   * A service account's token endpoint (FCM_TOKEN_URL, else the key file's
   * token_uri): requests the library would make to Google's are made there
   * (a proxy, a private endpoint, a test's fake). External accounts name
   * theirs in their own file (`token_url`).
   */
  readonly tokenUrl: string | null;
  readonly timeoutMs: number;
  readonly now?: () => number;
}

export type AccessTokenResult = { readonly ok: true; readonly token: string } | SendFailure;

export class AccessTokenSource {
  readonly #now: () => number;
  readonly #makeClient: () => Promise<AuthClient>;
  #client: Promise<AuthClient> | null = null;
  #cached: { token: string; renewAt: number } | null = null;
  #pending: Promise<AccessTokenResult> | null = null;

  constructor(options: AccessTokenOptions) {
    this.#now = options.now ?? Date.now;
    // The token requests only; a request the library retries still ends within our timeout per try. Node's fetch,
    // given rather than left for gaxios to import when first used (a dynamic import some runners refuse).
    const transporter = new gaxios.Gaxios({ timeout: options.timeoutMs, fetchImplementation: fetch });
    const tokenUrl = options.tokenUrl;
    if (tokenUrl !== null && tokenUrl !== GOOGLE_TOKEN_URL)
      transporter.interceptors.request.add({
        resolved: (config) => {
          if (config.url.href === GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
          return Promise.resolve(config);
        },
      });
    this.#makeClient = clientMaker(options.credentials, transporter);
  }

  get(): Promise<AccessTokenResult> {
    if (this.#cached !== null && this.#now() < this.#cached.renewAt)
      return Promise.resolve({ ok: true, token: this.#cached.token });
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /** FCM refused the token (401): mint a new one next time, here and in the library's own cache. */
  invalidate(token: string): void {
    if (this.#cached?.token !== token) return;
    this.#cached = null;
    void this.#client?.then(expire, () => undefined);
  }

  async #refresh(): Promise<AccessTokenResult> {
    let client: AuthClient;
    try {
      this.#client ??= this.#makeClient();
      client = await this.#client;
    } catch (error) {
      // No credentials found (ADC), or a file the library refuses: looked for again next time.
      this.#client = null;
      return failure('oauth_unavailable', `FCM credentials: ${describe(error)}`, { retryable: true });
    }
    try {
      expire(client);
      const { token } = await client.getAccessToken();
      if (typeof token !== 'string' || token === '')
        return failure('oauth_refused', 'FCM access token: the token endpoint gave none', { retryable: true });
      // The library stamps the expiry by the real clock.
      const expiry = client.credentials.expiry_date;
      const left = typeof expiry === 'number' ? expiry - Date.now() : 0;
      const lifetimeMs = left > 0 ? left : DEFAULT_LIFETIME_MS;
      this.#cached = { token, renewAt: this.#now() + Math.max(lifetimeMs - RENEW_BEFORE_MS, lifetimeMs / 2) };
      return { ok: true, token };
    } catch (error) {
      // Not the message's fault: whatever went wrong, the message waits and is tried again.
      const refused = error instanceof gaxios.GaxiosError && error.status !== undefined;
      return failure(
        refused ? 'oauth_refused' : 'oauth_unavailable',
        `FCM access token${refused ? ` refused (HTTP ${error.status})` : ''}: ${describe(error)}`,
        { retryable: true },
      );
    }
  }
}

// The library's client for an external-account file, chosen by its credential source as the library's own
// ExternalAccountClient.fromJSON chooses, through the constructors it recommends instead (fromJSON prints a
// warning on every call; the file was checked at start, credentials-file.ts).
function externalAccountClient(options: ExternalAccountClientOptions): AuthClient {
  const source: object = options.credential_source ?? {};
  if ('environment_id' in source) return new AwsClient(options as AwsClientOptions);
  if ('executable' in source) return new PluggableAuthClient(options as PluggableAuthClientOptions);
  return new IdentityPoolClient(options as IdentityPoolClientOptions);
}

// The library's client for the credentials: built from the file checked at start (credentials-file.ts), or found by
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server).
function clientMaker(credentials: FcmCredentials, transporter: gaxios.Gaxios): () => Promise<AuthClient> {
  if (credentials.kind === 'application_default')
    return () => new GoogleAuth({ scopes: [SCOPE], clientOptions: { transporter } }).getClient();
  const { json } = credentials;
  if (json.type === 'external_account')
    return () => {
      // The file was checked at start to be an external account (credentials-file.ts); the library's options are a
      // union of shapes that the parsed JSON, typed as a plain record, cannot be narrowed to.
      const options = json as unknown as ExternalAccountClientOptions;
      const client = externalAccountClient({ ...options, scopes: [SCOPE], transporter });
      // The library (11.3) gives its token exchange a client of its own, not the one given here: it would then
      // neither keep our timeout nor use Node's fetch. Handed ours, as its other requests have it.
      const exchange = (client as unknown as { stsCredential?: { transporter: gaxios.Gaxios } }).stsCredential;
      if (exchange !== undefined) exchange.transporter = transporter;
      return Promise.resolve(client);
    };
  return () =>
    Promise.resolve(
      new JWT({
        email: String(json.client_email),
        key: String(json.private_key),
        keyId: typeof json.private_key_id === 'string' ? json.private_key_id : undefined,
        scopes: [SCOPE],
        transporter,
      }),
    );
}

// Renewal is decided here (by the injected clock, or a 401): the library's own cache must not answer with the old
// token. Marked expired rather than emptied, so that what the client keeps (its refresh placeholder) stays.
function expire(client: AuthClient): void {
  client.setCredentials({ ...client.credentials, access_token: undefined, expiry_date: 1 });
}

// The library's words, bounded. They name the endpoint and Google's error (invalid_grant, …), never the key or
// the assertion (those are in the request, which is not quoted).
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_PROBLEM ? `${text.slice(0, MAX_PROBLEM)}…` : text;
}
