// Every console action goes into the audit trail (docs/console.md#audit),
// written before the action's answer: a console action whose entry cannot be
// written fails rather than go unrecorded.
import type { AccessStore, NewAuditRow } from '../store';

/** The endpoint name of console entries in the audit trail. */
export const CONSOLE_ENDPOINT = 'console';

// The trail's own bounds (src/access/audit-bounds.ts): addresses and user names are short.
const ADDRESS_MAX = 64;
const USER_MAX = 64;
const SUBJECT_MAX = 512;

export interface ConsoleAuditEntry {
  readonly address: string | null;
  /** The signed-in account, or for a sign-in the name that was tried. */
  readonly account: string | null;
  readonly operation: string;
  readonly subjectKind?: 'student' | 'school' | 'device' | 'class' | null;
  readonly subject?: string | null;
  readonly outcome: 'allowed' | 'refused';
  readonly reason?: string | null;
}

export type ConsoleAudit = (entry: ConsoleAuditEntry) => Promise<void>;

const cut = (text: string | null | undefined, max: number): string | null =>
  text === null || text === undefined ? null : text.slice(0, max);

export function consoleAudit(store: Pick<AccessStore, 'insertAuditEntries'>, now: () => Date): ConsoleAudit {
  return async (entry) => {
    const row: NewAuditRow = {
      at: now().toISOString(),
      address: cut(entry.address, ADDRESS_MAX),
      user: cut(entry.account, USER_MAX),
      endpoint: CONSOLE_ENDPOINT,
      operation: entry.operation,
      subjectKind: entry.subjectKind ?? null,
      subject: cut(entry.subject, SUBJECT_MAX),
      outcome: entry.outcome,
      reason: entry.reason ?? null,
      subjectLength: null,
      subjectSha256: null,
      omitted: null,
    };
    await store.insertAuditEntries([row]);
  };
}
