import { Client } from 'pg';
import { queueAuthCode, freshStorePerTest, storeVariants } from '../support/stores';

describe.each(storeVariants())('outbox administration on $name', (variant) => {
  const fresh = freshStorePerTest(variant);
  const { clock } = fresh;

  const push = () =>
    fresh.ctx.store.outbox.enqueuePushNotification({
      deviceId: 'd',
      studentId: 's',
      type: 't',
      title: 'x',
      body: 'y',
      data: {},
    });
  const setStatus = (table: string, id: string, status: string, extra = '') =>
    fresh.ctx.query(`update ${table} set status = ?, attempts = 7${extra} where id = ?`, [status, id]);

  it('re-queues a dead push notification, due now with its attempts reset', async () => {
    const id = await push();
    await setStatus('push_notifications', id, 'dead');
    clock.set('2030-01-02T00:00:00.000Z');
    expect(await fresh.ctx.store.admin.requeueOutboxMessage('push', id)).toBe('requeued');
    const [row] = await fresh.ctx.store.admin.listPushNotifications();
    expect(row).toMatchObject({
      status: 'queued',
      attempts: 0,
      nextAttemptAt: '2030-01-02T00:00:00.000Z',
      lockedUntil: null,
    });
  });

  it('refuses to re-queue what is not dead, unknown, or an erased code', async () => {
    const id = await push();
    expect(await fresh.ctx.store.admin.requeueOutboxMessage('push', id)).toBe('not_dead');
    expect(await fresh.ctx.store.admin.requeueOutboxMessage('push', 'nope')).toBe('not_found');
    const sms = await queueAuthCode(fresh.ctx.store, { phone: '+963944123456', code: '1234', callerAddress: null });
    await setStatus('auth_code_messages', sms, 'dead', ', code = null');
    expect(await fresh.ctx.store.admin.requeueOutboxMessage('sms', sms)).toBe('code_erased');
  });

  it('re-queues every dead message that can still be sent', async () => {
    const [a, b, c] = [await push(), await push(), await push()];
    await setStatus('push_notifications', a, 'dead');
    await setStatus('push_notifications', b, 'dead');
    await setStatus('push_notifications', c, 'sent');
    expect(await fresh.ctx.store.admin.requeueDeadOutboxMessages('push')).toBe(2);
    expect((await fresh.ctx.store.admin.listPushNotifications({ status: 'queued' })).map((r) => r.id).sort()).toEqual(
      [a, b].sort(),
    );
  });

  it('counts messages by status and finds the oldest pending one', async () => {
    const first = await push();
    clock.set('2030-01-01T01:00:00.000Z');
    await push();
    await setStatus('push_notifications', first, 'sent');
    const [pushStats, smsStats] = await fresh.ctx.store.admin.outboxStats();
    expect(pushStats).toEqual({
      channel: 'push',
      counts: { queued: 1, sending: 0, sent: 1, failed: 0, dead: 0, uncertain: 0 },
      oldestPendingAt: '2030-01-01T01:00:00.000Z',
    });
    expect(smsStats).toEqual({
      channel: 'sms',
      counts: { queued: 0, sending: 0, sent: 0, failed: 0, dead: 0, uncertain: 0 },
      oldestPendingAt: null,
    });
  });

  describe('pruning finished messages', () => {
    const touched = (table: string, id: string, status: string, updatedAt: string) =>
      fresh.ctx.query(`update ${table} set status = ?, updated_at = ? where id = ?`, [status, updatedAt, id]);
    const ids = async (table: 'push' | 'sms') =>
      (table === 'push'
        ? await fresh.ctx.store.admin.listPushNotifications()
        : await fresh.ctx.store.admin.listAuthCodeMessages()
      )
        .map((r) => r.id)
        .sort();

    it('deletes sent and dead messages last changed before the cut-off, and nothing pending however old', async () => {
      const [oldSent, oldDead, oldQueued, oldFailed, oldSending, newSent] = [
        await push(),
        await push(),
        await push(),
        await push(),
        await push(),
        await push(),
      ];
      await touched('push_notifications', oldSent, 'sent', '2030-01-01T00:00:00.000Z');
      await touched('push_notifications', oldDead, 'dead', '2030-01-09T23:59:59.999Z');
      await touched('push_notifications', oldQueued, 'queued', '2029-01-01T00:00:00.000Z');
      await touched('push_notifications', oldFailed, 'failed', '2029-01-01T00:00:00.000Z');
      await touched('push_notifications', oldSending, 'sending', '2029-01-01T00:00:00.000Z');
      await touched('push_notifications', newSent, 'sent', '2030-01-10T00:00:00.000Z');
      const oldCode = await queueAuthCode(fresh.ctx.store, {
        phone: '+963944123456',
        code: '1234',
        callerAddress: null,
      });
      const newCode = await queueAuthCode(fresh.ctx.store, {
        phone: '+963944123457',
        code: '1235',
        callerAddress: null,
      });
      await touched('auth_code_messages', oldCode, 'sent', '2030-01-02T00:00:00.000Z');
      await touched('auth_code_messages', newCode, 'dead', '2030-01-11T00:00:00.000Z');

      expect(await fresh.ctx.store.outbox.pruneOutbox('2030-01-10T00:00:00.000Z')).toEqual({ push: 2, sms: 1 });
      expect(await ids('push')).toEqual([oldQueued, oldFailed, oldSending, newSent].sort());
      expect(await ids('sms')).toEqual([newCode]);
      expect(await fresh.ctx.store.outbox.pruneOutbox('2030-01-10T00:00:00.000Z')).toEqual({ push: 0, sms: 0 });
    });

    it('deletes nothing once its signal is aborted', async () => {
      const id = await push();
      await touched('push_notifications', id, 'sent', '2030-01-01T00:00:00.000Z');
      const stopped = new AbortController();
      stopped.abort();
      expect(await fresh.ctx.store.outbox.pruneOutbox('2030-02-01T00:00:00.000Z', stopped.signal)).toEqual({
        push: 0,
        sms: 0,
      });
      expect(await ids('push')).toEqual([id]);
    });

    if (variant.name === 'postgres') {
      it('keeps a message re-queued while the delete waited for its row', async () => {
        const id = await push();
        await touched('push_notifications', id, 'dead', '2030-01-01T00:00:00.000Z');
        const { databaseUrl, schema } = fresh.ctx.options;
        const operator = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema ?? 'public'}` });
        await operator.connect();
        try {
          await operator.query('begin');
          await operator.query(
            "update push_notifications set status = 'queued', updated_at = '2030-02-01T00:00:00.000Z' where id = $1",
            [id],
          );
          const pruning = fresh.ctx.store.outbox.pruneOutbox('2030-01-10T00:00:00.000Z');
          // The delete has found the row as dead and now waits for its lock.
          await new Promise((resolve) => setTimeout(resolve, 200));
          await operator.query('commit');
          expect(await pruning).toEqual({ push: 0, sms: 0 });
        } finally {
          await operator.end();
        }
        expect(await ids('push')).toEqual([id]);
      });
    }

    it('goes through more rows than one batch deletes', async () => {
      const all: string[] = [];
      for (let i = 0; i < 1203; i++) all.push(await push());
      await fresh.ctx.query(`update push_notifications set status = 'sent', updated_at = '2030-01-01T00:00:00.000Z'`);
      const keep = await push();
      expect(await fresh.ctx.store.outbox.pruneOutbox('2030-02-01T00:00:00.000Z')).toEqual({ push: 1203, sms: 0 });
      expect(await ids('push')).toEqual([keep]);
    });
  });
});
