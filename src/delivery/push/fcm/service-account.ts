// The fields of a Google service-account key file (the JSON downloaded from
// the Firebase console) that minting an access token needs.

export interface ServiceAccount {
  readonly clientEmail: string;
  /** PEM. */
  readonly privateKey: string;
  readonly projectId: string | null;
  /** Where the signed assertion is exchanged for an access token. */
  readonly tokenUri: string;
}

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** Reads a key file's text; the error names what is missing, never the key. */
export function parseServiceAccount(
  text: string,
): { ok: true; account: ServiceAccount } | { ok: false; problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'is not JSON (expected a service-account key file from the Firebase console)' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { ok: false, problem: 'is not a JSON object' };
  const fields = parsed as Record<string, unknown>;
  const field = (name: string): string | null =>
    typeof fields[name] === 'string' && fields[name] !== '' ? fields[name] : null;
  if (field('type') !== null && field('type') !== 'service_account') {
    return { ok: false, problem: `is a "${field('type')}" key, not a service_account key` };
  }
  const clientEmail = field('client_email');
  const privateKey = field('private_key');
  const missing = [clientEmail === null ? 'client_email' : null, privateKey === null ? 'private_key' : null].filter(
    (m) => m !== null,
  );
  if (clientEmail === null || privateKey === null) return { ok: false, problem: `has no ${missing.join(' or ')}` };
  if (!privateKey.includes('PRIVATE KEY')) return { ok: false, problem: 'has a private_key that is not a PEM key' };
  return {
    ok: true,
    account: {
      clientEmail,
      privateKey,
      projectId: field('project_id'),
      tokenUri: field('token_uri') ?? GOOGLE_TOKEN_URI,
    },
  };
}
