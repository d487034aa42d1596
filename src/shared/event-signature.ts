// Standard Webhooks 1.0 (docs/delivery.md#delivery-events): a secret is
// `whsec_` and the base64 of its key; a delivery is signed with HMAC-SHA256
// over `${webhook-id}.${webhook-timestamp}.${body}`, sent as `v1,` and the
// base64 of the digest in `webhook-signature`.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';
/** The key's length when we make one (the specification asks for 24 to 64 bytes). */
const NEW_KEY_BYTES = 32;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/** A new secret: 32 random bytes. */
export function newEventSecret(random: (size: number) => Buffer = randomBytes): string {
  return PREFIX + random(NEW_KEY_BYTES).toString('base64');
}

/** Whether `secret` is `whsec_` and the base64 of a key of 24 to 64 bytes. */
export function isEventSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= MIN_KEY_BYTES && bytes <= MAX_KEY_BYTES;
}

/**
 * The key of a secret, for eventSignature. Keep it for the secret's next
 * signatures: an HMAC keyed with a KeyObject costs a tenth of the CPU of one
 * keyed with the key's bytes (docs/benchmark.md#delivery-events).
 */
export function eventSigningKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.slice(PREFIX.length), 'base64'));
}

/** The `webhook-signature` header of one attempt, with a secret or its key (eventSigningKey). */
export function eventSignature(secret: string | KeyObject, id: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === 'string' ? eventSigningKey(secret) : secret;
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
