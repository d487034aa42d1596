// A claimed push's options (claimedOptions, src/store/outbox/outbox-claims.ts)
// read as parseResolvedOptions reads them, whatever the text: the platforms'
// part is checked once per distinct text and shared, frozen
// (docs/delivery.md#cpu-per-push).
import { parseResolvedOptions, resolveOptions } from '../../src/domain/message-options';
import { claimedOptions } from '../../src/store/outbox/outbox-claims';

const stored = (type: string, dueAt: string, school?: Parameters<typeof resolveOptions>[3]['school']) =>
  JSON.stringify(resolveOptions(type, new Date(dueAt), 'Asia/Damascus', { school }));

const TEXTS: (string | null)[] = [
  null,
  stored('absence', '2026-11-28T08:00:00.000Z'),
  stored('absence', '2026-11-28T08:00:01.123Z'),
  stored('general', '2026-11-28T08:00:00.000Z'),
  stored('exam', '2026-11-28T08:00:00.000Z', {
    exam: { android: { collapseKey: 'exam', channelId: 'exams' }, apns: { sound: 'bell.caf', badge: 3, priority: 10 } },
  }),
  stored('x', '2026-11-28T08:00:00.000Z', { '*': { ttlSeconds: null, webpush: { urgency: 'high' } } }),
  '{"expiresAt":null,"android":{},"apns":{},"webpush":{}}',
  '{"expiresAt":"not a time","android":{},"apns":{},"webpush":{}}',
  '{"expiresAt":"2026-11-28T08:00:00.000Z","android":{"priority":"urgent"},"apns":{},"webpush":{}}',
  '{"expiresAt":"2026-11-28T08:00:00.000Z","android":{},"apns":{}}',
  '{"expiresAt":"2026-11-28T08:00:00.000Z","android":{},"apns":{},"webpush":{}',
  '{"expiresAt":"2026-11-28T08:00:00.000Z","android":{},"apns":{},"webpush":{},"expiresAt":"bad"}',
  '{"expiresAt":"2026-11-28T08:00:00.000Z","android":{},"apns":{},"webpush":{},"expiresAt":null}',
  '{"expiresAt":"2026-11-28\\u0054 08:00:00.000Z","android":{},"apns":{},"webpush":{}}',
  '{"expiresAt":"2026-11-28\t08:00:00.000Z","android":{},"apns":{},"webpush":{}}',
  '{"expiresAt":42,"android":{},"apns":{},"webpush":{}}',
  '{"android":{},"apns":{},"webpush":{},"expiresAt":null}',
  '{"expiresAt":null,"android":[],"apns":{},"webpush":{}}',
  '{"expiresAt":null,"android":{"priority":"high"},"apns":{"priority":5},"webpush":{},"extra":1}',
  'not json',
];

test('reads every text as parseResolvedOptions does, the first time and from what it keeps', () => {
  for (let round = 0; round < 2; round++)
    for (const text of TEXTS) expect([text, claimedOptions(text)]).toEqual([text, parseResolvedOptions(text)]);
});

test('messages with the same options share their platforms, frozen, and keep their own lifetime', () => {
  const a = claimedOptions(stored('general', '2026-11-28T08:00:00.000Z'));
  const b = claimedOptions(stored('general', '2026-11-28T09:00:00.000Z'));
  expect(a?.expiresAt).not.toBe(b?.expiresAt);
  expect(a?.android).toBe(b?.android);
  expect(Object.isFrozen(a?.android)).toBe(true);
  expect(() => {
    (a?.android as { priority?: string }).priority = 'high';
  }).toThrow(TypeError);
});
