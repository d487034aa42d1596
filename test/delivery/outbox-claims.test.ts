import { completeOne, queueAuthCode, freshStorePerTest, storeVariants } from '../support/stores';

describe.each(storeVariants())('outbox claims on $name', (variant) => {
  const fresh = freshStorePerTest(variant, {
    seed: async (c) => {
      await c.store.dataSet.writeDataSet({
        schools: [{ baseUrl: 'https://s.example', name: 'S' }],
        devices: [
          { id: 'd1', token: 'tok-1', platform: 'android' },
          { id: 'd2', token: null, platform: 'ios' },
        ],
        students: [{ id: '1', school: 'https://s.example', fullName: 'A', deviceId: 'd1', active: '1', classId: null }],
      });
    },
  });
  const { clock } = fresh;

  const push = (title: string, deviceId = 'd1') =>
    fresh.ctx.store.outbox.enqueuePushNotification({
      deviceId,
      studentId: '1',
      type: 'note',
      title,
      body: 'b',
      data: { type: 'note' },
    });
  const at = (iso: string) => clock.set(iso);

  it('claims due messages oldest first, with the device token, leased and counted', async () => {
    const first = await push('first');
    at('2030-01-01T00:00:01.000Z');
    const second = await push('second', 'd2');
    at('2030-01-01T00:00:02.000Z');
    const claimed = await fresh.ctx.store.outbox.claimPushNotifications(10, 60);
    expect(claimed.map((m) => [m.id, m.title, m.pushToken, m.platform, m.attempts])).toEqual([
      [first, 'first', 'tok-1', 'android', 1],
      [second, 'second', null, 'ios', 1],
    ]);
    expect(claimed[0].data).toEqual({ type: 'note' });
    expect(claimed[0].claimToken).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await fresh.ctx.store.admin.listPushNotifications({ limit: 1 });
    expect(row).toMatchObject({
      status: 'sending',
      attempts: 1,
      lockedUntil: '2030-01-01T00:01:02.000Z',
      nextAttemptAt: '2030-01-01T00:01:02.000Z',
    });
  });

  it('claims at most the limit and never a message under a live lease', async () => {
    await push('a');
    await push('b');
    await push('c');
    expect(await fresh.ctx.store.outbox.claimPushNotifications(2, 60)).toHaveLength(2);
    expect(await fresh.ctx.store.outbox.claimPushNotifications(2, 60)).toHaveLength(1);
    expect(await fresh.ctx.store.outbox.claimPushNotifications(2, 60)).toHaveLength(0);
  });

  it('claims again once the lease has run out, counting another attempt', async () => {
    await push('a');
    const [first] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    at('2030-01-01T00:00:59.999Z');
    expect(await fresh.ctx.store.outbox.claimPushNotifications(1, 60)).toEqual([]);
    at('2030-01-01T00:01:00.000Z');
    const [again] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    expect(again).toMatchObject({ id: first.id, attempts: 2 });
    expect(again.claimToken).not.toBe(first.claimToken);
  });

  it('completes only the current claim: a worker whose lease ran out cannot overwrite', async () => {
    const id = await push('a');
    const [stale] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    at('2030-01-01T00:02:00.000Z');
    const [current] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    expect(
      await completeOne(fresh.ctx.store, 'push', id, current.claimToken, {
        status: 'sent',
        providerMessageId: 'projects/p/messages/1',
      }),
    ).toBe(true);
    expect(await completeOne(fresh.ctx.store, 'push', id, stale.claimToken, { status: 'dead', error: 'late' })).toBe(
      false,
    );
    expect(await completeOne(fresh.ctx.store, 'push', id, current.claimToken, { status: 'dead', error: 'twice' })).toBe(
      false,
    );
    const [row] = await fresh.ctx.store.admin.listPushNotifications();
    expect(row).toMatchObject({
      status: 'sent',
      sentAt: '2030-01-01T00:02:00.000Z',
      lastError: null,
      lockedUntil: null,
      attempts: 2,
    });
    const [raw] = await fresh.ctx.query<{ provider_message_id: string }>(
      'select provider_message_id from push_notifications',
    );
    expect(raw.provider_message_id).toBe('projects/p/messages/1');
  });

  it('records a batch of results in one call: sent ones only for their current claim, each with its provider id, codes erased', async () => {
    const ids = [await push('a'), await push('b'), await push('c'), await push('d')];
    const code = await queueAuthCode(fresh.ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    const [first] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    at('2030-01-01T00:00:10.000Z');
    const pushes = [first, ...(await fresh.ctx.store.outbox.claimPushNotifications(10, 60))];
    const [sms] = (await fresh.ctx.store.outbox.claimAuthCodeMessages(10, 60)).messages;
    const token = (id: string) => pushes.find((m) => m.id === id)!.claimToken;
    // The first claim's lease runs out and another worker claims that message: its first result no longer counts.
    at('2030-01-01T00:01:05.000Z');
    const [again] = await fresh.ctx.store.outbox.claimPushNotifications(10, 60);
    expect(again.id).toBe(first.id);
    const stale = first.id;
    const [withId, withoutId, failed] = ids.filter((id) => id !== stale);
    const current = await fresh.ctx.store.outbox.completeDeliveries([
      {
        channel: 'push',
        id: stale,
        claimToken: token(stale),
        completion: { status: 'sent', providerMessageId: 'projects/p/messages/stale' },
      },
      {
        channel: 'push',
        id: withId,
        claimToken: token(withId),
        completion: { status: 'sent', providerMessageId: 'projects/p/messages/1' },
      },
      {
        channel: 'push',
        id: withoutId,
        claimToken: token(withoutId),
        completion: { status: 'sent', providerMessageId: null },
      },
      {
        channel: 'push',
        id: failed,
        claimToken: token(failed),
        completion: { status: 'failed', retryAt: '2030-01-01T00:03:00.000Z', error: 'UNAVAILABLE' },
      },
      {
        channel: 'sms',
        id: code,
        claimToken: sms.claimToken,
        completion: { status: 'sent', providerMessageId: 'SM1' },
      },
    ]);
    expect(current).toEqual([false, true, true, true, true]);
    const rows = await fresh.ctx.query<{ id: string; status: string; provider_message_id: string | null }>(
      'select id, status, provider_message_id from push_notifications',
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.provider_message_id]]))).toEqual({
      [stale]: ['sending', null],
      [withId]: ['sent', 'projects/p/messages/1'],
      [withoutId]: ['sent', null],
      [failed]: ['failed', null],
    });
    const [codeRow] = await fresh.ctx.query<{
      status: string;
      code: string | null;
      provider_message_id: string | null;
    }>('select status, code, provider_message_id from auth_code_messages');
    expect(codeRow).toEqual({ status: 'sent', code: null, provider_message_id: 'SM1' });
  });

  it('a failed attempt waits for its retry time, then is claimed again', async () => {
    const id = await push('a');
    const [claim] = await fresh.ctx.store.outbox.claimPushNotifications(1, 60);
    await completeOne(fresh.ctx.store, 'push', id, claim.claimToken, {
      status: 'failed',
      retryAt: '2030-01-01T00:00:30.000Z',
      error: 'UNAVAILABLE',
    });
    expect((await fresh.ctx.store.admin.listPushNotifications())[0]).toMatchObject({
      status: 'failed',
      nextAttemptAt: '2030-01-01T00:00:30.000Z',
      lockedUntil: null,
      lastError: 'UNAVAILABLE',
    });
    at('2030-01-01T00:00:29.000Z');
    expect(await fresh.ctx.store.outbox.claimPushNotifications(1, 60)).toEqual([]);
    at('2030-01-01T00:00:30.000Z');
    expect(await fresh.ctx.store.outbox.claimPushNotifications(1, 60)).toMatchObject([{ id, attempts: 2 }]);
  });

  it('erases the code of an auth-code message once it is sent or dead, not while it may be retried', async () => {
    const sent = await queueAuthCode(fresh.ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    const retried = await queueAuthCode(fresh.ctx.store, {
      phone: '+963944123457',
      code: '111111',
      callerAddress: null,
    });
    const dead = await queueAuthCode(fresh.ctx.store, { phone: '+963944123458', code: '222222', callerAddress: null });
    const claims = (await fresh.ctx.store.outbox.claimAuthCodeMessages(10, 60)).messages;
    expect(claims.map((c) => c.code).sort()).toEqual(['111111', '222222', '482913']);
    const token = (id: string) => claims.find((c) => c.id === id)!.claimToken;
    await completeOne(fresh.ctx.store, 'sms', sent, token(sent), { status: 'sent', providerMessageId: 'SM1' });
    await completeOne(fresh.ctx.store, 'sms', retried, token(retried), {
      status: 'failed',
      retryAt: '2030-01-01T00:01:00.000Z',
      error: 'http_503',
    });
    await completeOne(fresh.ctx.store, 'sms', dead, token(dead), { status: 'dead', error: 'http_400' });
    const rows = await fresh.ctx.query<{ id: string; status: string; code: string | null }>(
      'select id, status, code from auth_code_messages',
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, [r.status, r.code]]));
    expect(byId).toEqual({ [sent]: ['sent', null], [retried]: ['failed', '111111'], [dead]: ['dead', null] });
  });

  describe('a login code handed to a gateway that cannot drop a repeat', () => {
    const code = () => queueAuthCode(fresh.ctx.store, { phone: '+963944123456', code: '482913', callerAddress: null });
    const claimSms = () => fresh.ctx.store.outbox.claimAuthCodeMessages(10, 60);
    const row = async (id: string) =>
      (
        await fresh.ctx.query<{ status: string; code: string | null; attempts: number; last_error: string | null }>(
          'select status, code, attempts, last_error from auth_code_messages where id = ?',
          [id],
        )
      )[0];

    it('is claimed again when its lease ends before it reached the gateway', async () => {
      const id = await code();
      const { messages } = await claimSms();
      at('2030-01-01T00:01:00.000Z');
      expect(await claimSms()).toMatchObject({ messages: [{ id, attempts: 2, code: '482913' }], interrupted: [] });
      expect(messages).toHaveLength(1);
    });

    it('is never claimed again once it reached the gateway: when the lease ends it is uncertain, its code erased', async () => {
      const id = await code();
      const { messages } = await claimSms();
      expect(await fresh.ctx.store.outbox.markSmsSendStarted(id, messages[0].claimToken)).toBe(true);
      at('2030-01-01T00:00:59.999Z');
      expect(await claimSms()).toEqual({ messages: [], interrupted: [] });
      expect(await row(id)).toMatchObject({ status: 'sending', code: '482913' });
      at('2030-01-01T00:01:00.000Z');
      expect(await claimSms()).toEqual({ messages: [], interrupted: [id] });
      expect(await row(id)).toEqual({
        status: 'uncertain',
        code: null,
        attempts: 1,
        last_error: expect.stringMatching(/^worker_stopped: .*not sent again/) as string,
      });
      expect(
        await fresh.ctx.query('select attempt, outcome, code from outbox_attempts where message_id = ?', [id]),
      ).toEqual([{ attempt: 1, outcome: 'uncertain', code: 'worker_stopped' }]);
      // Later claims leave it alone.
      at('2030-01-01T01:00:00.000Z');
      expect(await claimSms()).toEqual({ messages: [], interrupted: [] });
      expect(await fresh.ctx.store.admin.getOutboxMessage('sms', id)).toMatchObject({ item: { status: 'uncertain' } });
    });

    it('is retried as before when the gateway answered a failure; the next attempt starts unmarked', async () => {
      const id = await code();
      const [first] = (await claimSms()).messages;
      await fresh.ctx.store.outbox.markSmsSendStarted(id, first.claimToken);
      await completeOne(fresh.ctx.store, 'sms', id, first.claimToken, {
        status: 'failed',
        retryAt: '2030-01-01T00:00:10.000Z',
        error: 'http_503: Service Unavailable',
      });
      at('2030-01-01T00:00:10.000Z');
      const { messages } = await claimSms();
      expect(messages).toMatchObject([{ id, attempts: 2, code: '482913' }]);
      // That attempt's worker dies before it reaches the gateway: claimed once more, not uncertain.
      at('2030-01-01T00:01:10.000Z');
      expect(await claimSms()).toMatchObject({ messages: [{ id, attempts: 3 }], interrupted: [] });
    });

    it('cannot be marked under a claim that is no longer current, or whose lease has run out', async () => {
      const id = await code();
      const [stale] = (await claimSms()).messages;
      at('2030-01-01T00:01:00.000Z');
      expect(await fresh.ctx.store.outbox.markSmsSendStarted(id, stale.claimToken)).toBe(false);
      const [current] = (await claimSms()).messages;
      expect(await fresh.ctx.store.outbox.markSmsSendStarted(id, stale.claimToken)).toBe(false);
      expect(await fresh.ctx.store.outbox.markSmsSendStarted(id, current.claimToken)).toBe(true);
    });
  });

  it('removes a device token only while it is still the same token', async () => {
    expect(await fresh.ctx.store.outbox.removeDeviceToken('d1', 'other')).toBe(false);
    expect(await fresh.ctx.store.records.getDeviceToken('d1')).toBe('tok-1');
    expect(await fresh.ctx.store.outbox.removeDeviceToken('d1', 'tok-1')).toBe(true);
    expect(await fresh.ctx.store.records.getDeviceToken('d1')).toBeNull();
  });

  it('two stores claiming at once never claim the same message', async () => {
    for (let i = 0; i < 40; i++) await push(`m${i}`);
    const other = await fresh.ctx.reopen();
    const batches = await Promise.all([
      fresh.ctx.store.outbox.claimPushNotifications(15, 60),
      other.outbox.claimPushNotifications(15, 60),
      fresh.ctx.store.outbox.claimPushNotifications(15, 60),
      other.outbox.claimPushNotifications(15, 60),
    ]);
    const ids = batches.flat().map((m) => m.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});
