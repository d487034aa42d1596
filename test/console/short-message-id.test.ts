// The short id a list shows must tell apart messages queued in the same moment:
// push ids are time-ordered, so their first characters are shared (src/console/values.ts).
import { randomUUID } from 'node:crypto';
import { shortMessageId } from '../../src/console/values';
import { timeOrderedId } from '../../src/store/outbox/time-ordered-id';

describe('a message id shortened for a list', () => {
  it('differs between push ids queued in the same millisecond', () => {
    const now = Date.parse('2026-11-28T14:48:03.000Z');
    const ids = Array.from({ length: 50 }, () => timeOrderedId(now));
    expect(new Set(ids.map(shortMessageId)).size).toBe(ids.length);
  });

  it('is the last 8 characters of any id', () => {
    const id = randomUUID();
    expect(shortMessageId(id)).toBe(id.slice(-8));
    expect(shortMessageId('01a222a0-0000-7000-8000-0123456789ab')).toBe('456789ab');
  });
});
