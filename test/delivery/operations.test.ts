// AuthCode's abuse limits and phone rules, and SendNotificationType's
// templates, as a caller sees them over the wire.
import type { App } from '../../src/server';
import type { NotificationTemplate } from '../../src/domain';
import type { OperationRules } from '../../src/operations';
import { operationsApp } from '../support/operations-app';
import type { AuthCodeLimit } from '../../src/store';
import { testClock } from '../store/store-fixture';
import { type TestStore, sqliteVariant } from '../support/stores';
import { bodyText, httpGet, httpPost, soap11, soap12 } from '../support/wire';
import { dataSet } from './support/harness';

const LIMITS: AuthCodeLimit[] = [
  { scope: 'phone', max: 1, windowSeconds: 60 },
  { scope: 'phone', max: 3, windowSeconds: 600 },
  { scope: 'caller', max: 4, windowSeconds: 3600 },
  { scope: 'global', max: 6, windowSeconds: 3600 },
];

const sqlite = sqliteVariant();

describe('AuthCode and SendNotificationType with delivery rules', () => {
  const clock = testClock();
  let ctx: TestStore;
  let app: App;
  let queued: string[];

  async function start(rules: Partial<OperationRules> = {}): Promise<void> {
    queued = [];
    app = await operationsApp(ctx.store, {
      authCodeLimits: LIMITS,
      onQueued: (channel) => queued.push(channel),
      ...rules,
    });
  }

  beforeEach(async () => {
    clock.set('2030-01-01T00:00:00.000Z');
    ctx = await sqlite.create({ now: clock.now });
    await ctx.store.dataSet.writeDataSet(dataSet(2));
    await start();
  });
  afterEach(() => ctx.cleanup());

  const authCode = (phone: string, code = '482913') => httpPost(app, 'AuthCodeSending', 'AuthCode', { code, phone });
  const PHONE_REFUSAL =
    'Too many login codes for this phone number: at most 1 per minute. Try again in 40 seconds (after 2030-01-01T00:01:00.000Z).';

  describe('abuse limits', () => {
    beforeEach(async () => {
      expect((await authCode('0944123456')).status).toBe(200);
      clock.set('2030-01-01T00:00:20.000Z');
    });

    it('a second code for the phone within a minute is a soap:Client fault naming the limit and when to retry', async () => {
      const res = await soap11(app, 'AuthCodeSending', 'AuthCode', { code: '111111', phone: '+963944123456' });
      expect(res.status).toBe(500);
      expect(bodyText(res)).toContain('<faultcode>soap:Client</faultcode>');
      expect(bodyText(res)).toContain(`<faultstring>${PHONE_REFUSAL}</faultstring>`);
      expect(res.headers['retry-after']).toBe('40');
    });

    it('SOAP 1.2: soap:Sender; GET and POST: plain-text 500', async () => {
      const res12 = await soap12(app, 'AuthCodeSending', 'AuthCode', { code: '111111', phone: '+963944123456' });
      expect(bodyText(res12)).toContain('<soap:Value>soap:Sender</soap:Value>');
      expect(bodyText(res12)).toContain(PHONE_REFUSAL);
      for (const res of [
        await httpGet(app, 'AuthCodeSending', 'AuthCode', { code: '111111', phone: '0944123456' }),
        await authCode('0944 123 456'),
      ]) {
        expect(res.status).toBe(500);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(bodyText(res)).toBe(`${PHONE_REFUSAL}\r\n`);
        expect(res.headers['retry-after']).toBe('40');
      }
      expect(res12.headers['retry-after']).toBe('40');
    });

    it('the refused calls queue nothing; after the window the phone may ask again', async () => {
      await authCode('0944123456');
      expect(await ctx.store.admin.listAuthCodeMessages()).toHaveLength(1);
      expect(queued).toEqual(['sms']);
      clock.set('2030-01-01T00:01:00.000Z');
      expect((await authCode('0944123456')).status).toBe(200);
      expect(await ctx.store.admin.listAuthCodeMessages()).toHaveLength(2);
    });

    it('per calling address, then the global budget', async () => {
      for (const phone of ['0944000001', '0944000002', '0944000003']) expect((await authCode(phone)).status).toBe(200);
      const res = await authCode('0944000004');
      expect(bodyText(res)).toMatch(
        /^Too many login codes requested from this address: at most 4 per hour\. Try again in 3580 seconds \(after 2030-01-01T01:00:00\.000Z\)\.\r\n$/,
      );
      expect(res.headers['retry-after']).toBe('3580');

      await ctx.store.outbox.admitAuthCode({ phone: '+963944000005', code: '1', callerAddress: '198.51.100.7' }, []);
      await ctx.store.outbox.admitAuthCode({ phone: '+963944000006', code: '1', callerAddress: '198.51.100.8' }, []);
      const budget = await ctx.store.outbox.admitAuthCode(
        { phone: '+963944000007', code: '1', callerAddress: '198.51.100.9' },
        LIMITS,
      );
      expect(budget).toMatchObject({ admitted: false, limit: { scope: 'global', max: 6 } });
    });
  });

  describe('phone numbers', () => {
    it.each([
      ['0944 123 456', '+963944123456'],
      ['+963 944-123-456', '+963944123456'],
      ['00963944123456', '+963944123456'],
    ])('%s is stored as %s', async (raw, e164) => {
      expect((await authCode(raw)).status).toBe(200);
      expect((await ctx.store.admin.listAuthCodeMessages())[0].phone).toBe(e164);
    });

    it.each([
      ['011 222 3333', 'The phone number +*********333 is not a mobile number.'],
      ['+96171123456', 'Phone numbers of LB are not accepted by this service.'],
      ['09441234', 'The phone number *****234 is not a valid number.'],
      ['call me', 'The phone number call me is not a valid number.'],
    ])('%s is refused: %s', async (raw, message) => {
      const res = await authCode(raw);
      expect(res.status).toBe(500);
      expect(bodyText(res)).toBe(`${message}\r\n`);
      expect(await ctx.store.admin.listAuthCodeMessages()).toHaveLength(0);
    });

    it('accepts another country once it is allowed', async () => {
      await start({ phone: { defaultRegion: 'SY', allowedCountries: ['SY', 'LB'] } });
      expect((await authCode('+96171123456')).status).toBe(200);
      expect((await ctx.store.admin.listAuthCodeMessages())[0].phone).toBe('+96171123456');
    });
  });

  describe('notification templates', () => {
    const send = (type: string) =>
      httpPost(app, 'NotificationNotes', 'SendNotificationType', {
        id: '1001',
        baseUrlSchool: 'https://school.example',
        TypeNotfication: type,
      });
    const custom: Record<string, NotificationTemplate> = {
      absence: {
        ar: { title: 'غياب اليوم', body: '{name} غائب' },
        en: { title: 'Absent today', body: '{name} is absent' },
      },
      '*': { ar: { title: 'تنبيه', body: 'تنبيه عن {name}' }, en: { title: 'Notice', body: 'Notice about {name}' } },
    };

    it('a type without a template of its own gets the fallback, and the data names type, student and school', async () => {
      expect((await send('Trip')).status).toBe(200);
      const [row] = await ctx.store.admin.listPushNotifications();
      expect(row).toMatchObject({ type: 'Trip', title: 'إشعار جديد | New notification' });
      expect(row.data).toMatchObject({
        type: 'Trip',
        studentId: '1001',
        school: 'https://school.example',
        title_en: 'New notification',
      });
      // The school it looked up is kept with the message, for the console's list of messages.
      expect(await ctx.query('select school_key from push_notifications')).toEqual([
        { school_key: 'https://school.example' },
      ]);
      expect(queued).toEqual(['push']);
    });

    it("answers the same during the school's quiet hours, at once, and the message is held in the outbox", async () => {
      await start({ now: clock.now });
      const params = { id: '1001', baseUrlSchool: 'https://school.example', TypeNotfication: 'note' };
      const before = await soap11(app, 'NotificationNotes', 'SendNotificationType', params);
      // 00:00 UTC is 03:00 in Damascus (UTC+3): inside its quiet hours, which end at 06:30 there (03:30Z).
      await ctx.store.dataSet.writeDataSet({
        schools: [
          { baseUrl: 'https://school.example', name: 'School', timeZone: 'Asia/Damascus', quietHours: '22:00-06:30' },
        ],
      });
      // A second later, so that the list (by creation time, then random id) has the two in order.
      clock.set('2030-01-01T00:00:01.000Z');
      const during = await soap11(app, 'NotificationNotes', 'SendNotificationType', params);
      expect([during.status, bodyText(during), during.headers['content-type']]).toEqual([
        before.status,
        bodyText(before),
        before.headers['content-type'],
      ]);
      const rows = await ctx.store.admin.listPushNotifications();
      expect(rows.map((row) => row.heldUntil)).toEqual([null, '2030-01-01T03:30:00.000Z']);
      expect(queued).toEqual(['push', 'push']);
    });

    it('NOTIFICATION_TEMPLATES override per type and for the fallback', async () => {
      await start({ templates: custom });
      await send('ABSENCE');
      clock.set('2030-01-01T00:00:01.000Z');
      await send('trip');
      const rows = await ctx.store.admin.listPushNotifications();
      expect(rows.map((r) => [r.title, r.body])).toEqual([
        ['غياب اليوم | Absent today', 'Student 1001 غائب\nStudent 1001 is absent'],
        ['تنبيه | Notice', 'تنبيه عن Student 1001\nNotice about Student 1001'],
      ]);
    });
  });
});
