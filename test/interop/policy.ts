// The auth run's access policy (docs/interop.md): one Basic user, required
// for every operation of every endpoint and, through `documents: follow`, for
// ?wsdl too, so that each generator has to fetch the WSDL with credentials.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import type { Credentials } from './clients/client';

export const REALM = 'Student Notification Service (interop)';

/** A fresh user and password per run, so nothing secret is committed or reused. */
export function newCredentials(): Credentials {
  return { user: 'interop-client', password: randomBytes(18).toString('base64url') };
}

/** Writes the policy (JSON, as ACCESS_POLICY reads it; docs/interop.md shows it) and returns its path. */
export function writePolicy(dir: string, credentials: Credentials): string {
  const policy = {
    realm: REALM,
    documents: 'follow',
    users: { [credentials.user]: bcrypt.hashSync(credentials.password, 10) },
    default: { allow: ['0.0.0.0/0', '::/0'], auth: 'basic' },
  };
  const file = path.join(dir, 'access-policy.json');
  writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`);
  return file;
}

/**
 * Whether the service refuses a WSDL request without credentials the way the policy says:
 * null when it does, else what it did instead.
 */
export async function policyNotEnforced(port: number): Promise<string | null> {
  const answer = await get(port, '/NotificationNotes.asmx?wsdl');
  if (answer.status === 401 && /^Basic\b/i.test(answer.challenge ?? '')) return null;
  return `GET /NotificationNotes.asmx?wsdl without credentials got ${answer.status}${answer.challenge === undefined ? '' : ` (WWW-Authenticate: ${answer.challenge})`}, not 401 with a Basic challenge`;
}

function get(port: number, requestPath: string): Promise<{ status: number; challenge?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: requestPath }, (response) => {
        response.resume();
        const challenge = response.headers['www-authenticate'];
        resolve({ status: response.statusCode ?? 0, challenge });
      })
      .on('error', reject);
  });
}
