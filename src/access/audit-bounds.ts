// What the audit trail keeps of one entry (docs/access-limits.md#what-an-entry-keeps):
// a subject no longer than the longest valid id of its kind, as the stored
// collections define it (src/store/collections/), and an address and a user
// no longer than any real one. A longer subject is kept cut, with its full
// length and the SHA-256 of the whole, so that a refused call with a
// megabyte id costs the trail what a real id does, and can still be told
// apart from another.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { storableText } from '../shared/nul';
import { COLLECTION_OF } from '../store/collections';
import type { AuditSubjectKind } from './contracts';

/** The `max` of a text field's schema, through `optional()` and `nullable()`. */
function maxLengthOf(schema: z.ZodType): number {
  let inner: unknown = schema;
  for (;;) {
    const def = (inner as { def: { type: string; innerType?: unknown } }).def;
    if (def.type === 'optional' || def.type === 'nullable') inner = def.innerType;
    else break;
  }
  const max = (inner as { maxLength?: number | null }).maxLength;
  if (typeof max !== 'number') throw new Error('an audited id field has no maximum length');
  return max;
}

/** The longest valid id of each kind of subject: what the collections accept. */
export const AUDIT_SUBJECT_MAX: Readonly<Record<AuditSubjectKind, number>> = {
  school: maxLengthOf(COLLECTION_OF.schools.fields.baseUrl.schema),
  device: maxLengthOf(COLLECTION_OF.devices.fields.id.schema),
  student: maxLengthOf(COLLECTION_OF.students.fields.id.schema),
  class: maxLengthOf(COLLECTION_OF.students.fields.classId.schema),
};

/** A subject whose kind is not known is cut at the longest of them. */
export const AUDIT_SUBJECT_MAX_ANY = Math.max(...Object.values(AUDIT_SUBJECT_MAX));

/** The longest address text: IPv6 with an IPv4 tail (45 characters) and room for a zone (`%eth0`). */
export const AUDIT_ADDRESS_MAX = 64;

/** A policy's user names are at most 64 characters (USER_NAME in policy.ts). */
export const AUDIT_USER_MAX = 64;

export interface KeptSubject {
  readonly subject: string | null;
  /** The full length (UTF-16 code units, as the collections count) when the subject was cut, else null. */
  readonly subjectLength: number | null;
  /** SHA-256 (hex) of the whole subject, UTF-8, when it was cut, else null. */
  readonly subjectSha256: string | null;
}

/**
 * `text` cut to at most `max` code units, never in the middle of a surrogate
 * pair, and as every store can keep it: a NUL as U+FFFD (src/shared/nul.ts),
 * which PostgreSQL would refuse, failing the whole batch of entries with it.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return storableText(text);
  const end = max > 0 && /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return storableText(text.slice(0, end));
}

export function cutOrNull(text: string | null, max: number): string | null {
  return text === null ? null : cutText(text, max);
}

/** What the trail keeps of a subject of `kind`. */
export function keptSubject(kind: AuditSubjectKind | null, subject: string | null): KeptSubject {
  const max = kind === null ? AUDIT_SUBJECT_MAX_ANY : AUDIT_SUBJECT_MAX[kind];
  // cutText keeps a subject within the bound whole, NUL written as every store can keep it.
  if (subject === null || subject.length <= max)
    return { subject: subject === null ? null : cutText(subject, max), subjectLength: null, subjectSha256: null };
  return {
    subject: cutText(subject, max),
    subjectLength: subject.length,
    subjectSha256: createHash('sha256').update(subject, 'utf8').digest('hex'),
  };
}
