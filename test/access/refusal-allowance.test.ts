// The per-caller allowance of refusals the audit trail keeps one by one
// (src/access/refusal-allowance.ts), and the bounds of what one entry keeps
// (src/access/audit-bounds.ts), taken from the collections' own fields.
import { AUDIT_SUBJECT_MAX, AUDIT_USER_MAX } from '../../src/access/audit-bounds';
import type { AuditEntry } from '../../src/access/contracts';
import { USER_NAME } from '../../src/access/policy';
import { createRefusalAllowance } from '../../src/access/refusal-allowance';
import { COLLECTION_OF } from '../../src/store/collections';

const AT = Date.parse('2030-01-01T10:00:00.000Z');

const refusal = (address: string, atMs = AT, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: new Date(atMs),
  address,
  user: null,
  endpoint: 'PushNotificationMobile',
  operation: 'GetTokenDevice',
  subjectKind: 'device',
  subject: 'x'.repeat(1_000_000),
  outcome: 'refused',
  reason: 'limit',
  ...overrides,
});

describe('refusal allowance', () => {
  it('tracks a bounded number of callers: the one refused longest ago is forgotten, its summary given at once', () => {
    const allowance = createRefusalAllowance({ perWindow: 1, maxCallers: 3 });
    for (const n of [1, 2, 3]) {
      expect(allowance.admit(refusal(`10.0.0.${n}`))).toBe(true);
      expect(allowance.admit(refusal(`10.0.0.${n}`))).toBe(false);
    }
    // 10.0.0.1 is refused again: 10.0.0.2 is now the one refused longest ago.
    expect(allowance.admit(refusal('10.0.0.1'))).toBe(false);
    for (let n = 4; n < 10_004; n++) allowance.admit(refusal(`10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`));
    expect(allowance.tracked).toBe(3);
    const summaries = allowance.takeSummaries(AT);
    expect(summaries.slice(0, 2).map((s) => [s.address, s.omitted])).toEqual([
      ['10.0.0.2', 1],
      ['10.0.0.3', 1],
    ]);
    expect(summaries[2]).toMatchObject({ address: '10.0.0.1', omitted: 2 });
    // Callers forgotten without anything left out give no summary.
    expect(summaries).toHaveLength(3);
  });

  it('closes a window when the next one starts, and keeps no subject', () => {
    const allowance = createRefusalAllowance({ perWindow: 2 });
    for (let n = 0; n < 5; n++) allowance.admit(refusal('10.0.0.1', AT + n));
    expect(allowance.takeSummaries(AT + 59_999)).toEqual([]);
    expect(allowance.admit(refusal('10.0.0.1', AT + 60_000))).toBe(true);
    const [summary] = allowance.takeSummaries(AT + 60_000);
    expect(summary).toEqual({
      at: new Date(AT + 4),
      address: '10.0.0.1',
      user: null,
      endpoint: 'PushNotificationMobile',
      operation: 'GetTokenDevice',
      subjectKind: 'device',
      omitted: 3,
    });
    expect(allowance.takeSummaries(Number.POSITIVE_INFINITY)).toEqual([]);
  });
});

describe('audit bounds', () => {
  it('are the longest ids the collections accept, for each kind of subject', () => {
    const accepts = (schema: { safeParse(v: unknown): { success: boolean } }, length: number) =>
      schema.safeParse('9'.repeat(length)).success;
    const fields = {
      school: COLLECTION_OF.schools.fields.baseUrl.schema,
      device: COLLECTION_OF.devices.fields.id.schema,
      student: COLLECTION_OF.students.fields.id.schema,
      class: COLLECTION_OF.students.fields.classId.schema,
    };
    for (const [kind, schema] of Object.entries(fields)) {
      const max = AUDIT_SUBJECT_MAX[kind as keyof typeof AUDIT_SUBJECT_MAX];
      expect([kind, accepts(schema, max), accepts(schema, max + 1)]).toEqual([kind, true, false]);
    }
    expect(AUDIT_SUBJECT_MAX).toEqual({ school: 512, device: 128, student: 128, class: 64 });
  });

  it('keep any user name a policy accepts', () => {
    expect(USER_NAME.test('u'.repeat(AUDIT_USER_MAX))).toBe(true);
    expect(USER_NAME.test('u'.repeat(AUDIT_USER_MAX + 1))).toBe(false);
  });
});
