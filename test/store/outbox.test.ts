import { queueAuthCode, freshStorePerTest, storeVariants } from '../support/stores';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// A push notification's id is time-ordered (src/store/outbox/time-ordered-id.ts): version 7, the store's clock first.
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(storeVariants())('outbox on $name', (variant) => {
  const fresh = freshStorePerTest(variant);
  const { clock } = fresh;

  describe('enqueuePushNotification', () => {
    it('writes a queued row due now and returns its id', async () => {
      const id = await fresh.ctx.store.outbox.enqueuePushNotification({
        deviceId: 'dev-1',
        studentId: '1001',
        type: 'absence',
        title: 'غياب',
        body: 'Ahmad was absent & "late" <today>',
        data: { studentId: '1001', type: 'absence' },
      });
      expect(id).toMatch(UUID_V7);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(clock.now().getTime());
      expect(await fresh.ctx.store.admin.listPushNotifications()).toEqual([
        {
          id,
          deviceId: 'dev-1',
          studentId: '1001',
          type: 'absence',
          title: 'غياب',
          body: 'Ahmad was absent & "late" <today>',
          data: { studentId: '1001', type: 'absence' },
          status: 'queued',
          attempts: 0,
          nextAttemptAt: '2030-01-01T00:00:00.000Z',
          lockedUntil: null,
          lastError: null,
          createdAt: '2030-01-01T00:00:00.000Z',
          updatedAt: '2030-01-01T00:00:00.000Z',
          sentAt: null,
          options: null,
          heldUntil: null,
        },
      ]);
    });

    it('writes a message held until a later due time, with its options, and no claim takes it before then', async () => {
      const options = {
        expiresAt: '2030-01-02T00:00:00.000Z',
        android: { priority: 'high' as const, channelId: 'absence' },
        apns: { priority: 10 as const, sound: 'default' },
        webpush: { urgency: 'high' as const },
      };
      const id = await fresh.ctx.store.outbox.enqueuePushNotification({
        deviceId: 'dev-1',
        studentId: '1001',
        type: 'absence',
        title: 't',
        body: 'b',
        data: {},
        dueAt: '2030-01-01T06:30:00.000Z',
        options,
      });
      expect(await fresh.ctx.store.admin.listPushNotifications()).toEqual([
        expect.objectContaining({
          id,
          nextAttemptAt: '2030-01-01T06:30:00.000Z',
          heldUntil: '2030-01-01T06:30:00.000Z',
          options,
        }),
      ]);
      expect(await fresh.ctx.store.outbox.claimPushNotifications(10, 60)).toEqual([]);
      clock.set('2030-01-01T06:30:00.000Z');
      const claimed = await fresh.ctx.store.outbox.claimPushNotifications(10, 60);
      expect(claimed.map((message) => ({ id: message.id, options: message.options }))).toEqual([{ id, options }]);
      // Claimed, it is no longer held.
      expect((await fresh.ctx.store.admin.listPushNotifications())[0].heldUntil).toBeNull();
    });

    it('lists oldest first, filtered by status and limited', async () => {
      const ids: string[] = [];
      for (const minute of ['03', '01', '02']) {
        clock.set(`2030-01-01T00:${minute}:00.000Z`);
        ids.push(
          await fresh.ctx.store.outbox.enqueuePushNotification({
            deviceId: 'd',
            studentId: 's',
            type: 't',
            title: minute,
            body: '',
            data: {},
          }),
        );
      }
      const listed = await fresh.ctx.store.admin.listPushNotifications();
      expect(listed.map((row) => row.title)).toEqual(['01', '02', '03']);
      expect(new Set(ids).size).toBe(3);
      expect((await fresh.ctx.store.admin.listPushNotifications({ limit: 2 })).map((row) => row.title)).toEqual([
        '01',
        '02',
      ]);
      expect(await fresh.ctx.store.admin.listPushNotifications({ status: 'sent' })).toEqual([]);
      expect(await fresh.ctx.store.admin.listPushNotifications({ status: 'queued' })).toHaveLength(3);
    });
  });

  describe('queueing a login code (admitAuthCode with no limits)', () => {
    it('writes a queued message with the code and caller and returns its id', async () => {
      const id = await queueAuthCode(fresh.ctx.store, {
        phone: '+963944123456',
        code: '123456',
        callerAddress: '203.0.113.9',
      });
      const other = await queueAuthCode(fresh.ctx.store, { phone: '+963944123456', code: '0042', callerAddress: null });
      expect(id).toMatch(UUID);
      expect(other).not.toBe(id);
      const rows = await fresh.ctx.store.admin.listAuthCodeMessages();
      expect(rows).toHaveLength(2);
      expect(rows.find((row) => row.id === id)).toEqual({
        id,
        phone: '+963944123456',
        code: '123456',
        callerAddress: '203.0.113.9',
        status: 'queued',
        attempts: 0,
        nextAttemptAt: '2030-01-01T00:00:00.000Z',
        lockedUntil: null,
        lastError: null,
        createdAt: '2030-01-01T00:00:00.000Z',
        updatedAt: '2030-01-01T00:00:00.000Z',
        sentAt: null,
      });
      // Codes are text: leading zeros survive.
      expect(rows.find((row) => row.id === other)).toMatchObject({ code: '0042', callerAddress: null });
      expect(await fresh.ctx.store.admin.listAuthCodeMessages({ status: 'dead' })).toEqual([]);
    });
  });
});
