// FCM_CREDENTIALS (docs/delivery.md#fcm-credentials): a service-account key
// file (the JSON downloaded from the Firebase console) or an external-account
// file (workload identity federation: a configuration that trades a token the
// platform gives, from a file, a URL or a program, for a Google one, holding
// no key). Read and checked at start so that a bad file stops the start; what
// is wrong is named, never the key. google-auth-library does the rest.

/** The file's JSON, and the Firebase project it names (a key file's `project_id`). */
export interface CredentialsFile {
  readonly type: 'service_account' | 'external_account';
  readonly json: Readonly<Record<string, unknown>>;
  readonly projectId: string | null;
  /** A key file's token endpoint (`token_uri`), when it names one. */
  readonly tokenUri: string | null;
}

export function parseCredentialsFile(
  text: string,
): { ok: true; file: CredentialsFile } | { ok: false; problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'is not JSON (expected a service-account key file or an external-account file)' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, problem: 'is not a JSON object' };
  const json = parsed as Record<string, unknown>;
  const field = (name: string): string | null =>
    typeof json[name] === 'string' && json[name] !== '' ? json[name] : null;
  const type = field('type') ?? 'service_account';
  if (type === 'external_account') {
    const missing = ['audience', 'subject_token_type', 'token_url'].filter((name) => field(name) === null);
    if (missing.length > 0) return { ok: false, problem: `is an external_account file without ${missing.join(', ')}` };
    if (typeof json.credential_source !== 'object' || json.credential_source === null)
      return { ok: false, problem: 'is an external_account file without credential_source' };
    return { ok: true, file: { type, json, projectId: field('project_id'), tokenUri: null } };
  }
  if (type !== 'service_account')
    return { ok: false, problem: `is a "${type}" key, not a service_account key or an external_account file` };
  const missing = ['client_email', 'private_key'].filter((name) => field(name) === null);
  if (missing.length > 0) return { ok: false, problem: `has no ${missing.join(' or ')}` };
  if (!(field('private_key') ?? '').includes('PRIVATE KEY'))
    return { ok: false, problem: 'has a private_key that is not a PEM key' };
  return { ok: true, file: { type, json, projectId: field('project_id'), tokenUri: field('token_uri') } };
}
