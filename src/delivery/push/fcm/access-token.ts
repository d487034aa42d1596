// An OAuth2 access token for FCM, minted from a service account without an
// SDK: a JWT signed RS256 with node:crypto, exchanged at the token endpoint
// (RFC 7523), and cached until shortly before it expires. Concurrent senders
// share one exchange.
import { createSign } from 'node:crypto';
import { answerDetail, httpCall, isSuccess, jsonBody } from '../../http/http-call';
import { failure, type SendFailure } from '../../provider';
import type { ServiceAccount } from './service-account';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const ASSERTION_LIFETIME_S = 3600;
// Renew this long before expiry, so that a token never lapses mid-request.
const RENEW_BEFORE_MS = 5 * 60 * 1000;

export interface AccessTokenOptions {
  readonly account: ServiceAccount;
  /** Overrides the key file's token_uri (tests, proxies). */
  readonly tokenUrl?: string;
  readonly timeoutMs: number;
  readonly now?: () => number;
}

export type AccessTokenResult = { readonly ok: true; readonly token: string } | SendFailure;

export class AccessTokenSource {
  readonly #options: AccessTokenOptions;
  readonly #now: () => number;
  #cached: { token: string; renewAt: number } | null = null;
  #pending: Promise<AccessTokenResult> | null = null;

  constructor(options: AccessTokenOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get(): Promise<AccessTokenResult> {
    if (this.#cached !== null && this.#now() < this.#cached.renewAt)
      return Promise.resolve({ ok: true, token: this.#cached.token });
    this.#pending ??= this.#exchange().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  /** FCM refused the token (401): mint a new one next time. */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = null;
  }

  async #exchange(): Promise<AccessTokenResult> {
    const url = this.#options.tokenUrl ?? this.#options.account.tokenUri;
    const answer = await httpCall({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: this.#assertion(url),
      }).toString(),
      timeoutMs: this.#options.timeoutMs,
    });
    // Not the message's fault: whatever went wrong, the message waits and is tried again.
    if (!answer.ok) return failure('oauth_unavailable', `FCM access token: ${answer.message}`, { retryable: true });
    const body = jsonBody(answer) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (!isSuccess(answer) || typeof body?.access_token !== 'string') {
      return failure(
        'oauth_refused',
        `FCM access token refused (HTTP ${answer.status}): ${answerDetail(answer.body)}`,
        { retryable: true },
      );
    }
    const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : ASSERTION_LIFETIME_S) * 1000;
    this.#cached = {
      token: body.access_token,
      renewAt: this.#now() + Math.max(lifetimeMs - RENEW_BEFORE_MS, lifetimeMs / 2),
    };
    return { ok: true, token: body.access_token };
  }

  #assertion(audience: string): string {
    const issuedAt = Math.floor(this.#now() / 1000);
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
    const claims = base64url(
      JSON.stringify({
        iss: this.#options.account.clientEmail,
        scope: SCOPE,
        aud: audience,
        iat: issuedAt,
        exp: issuedAt + ASSERTION_LIFETIME_S,
      }),
    );
    const signature = createSign('RSA-SHA256')
      .update(`${header}.${claims}`)
      .sign(this.#options.account.privateKey, 'base64url');
    return `${header}.${claims}.${signature}`;
  }
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
