import type { AuthCodeLimit } from '../../src/store';
import { freshStorePerTest, storeVariants } from '../support/stores';

const PHONE = '+963944123456';
const LIMITS: AuthCodeLimit[] = [
  { scope: 'phone', max: 1, windowSeconds: 60 },
  { scope: 'phone', max: 3, windowSeconds: 600 },
  { scope: 'phone', max: 10, windowSeconds: 86400 },
  { scope: 'caller', max: 30, windowSeconds: 3600 },
  { scope: 'global', max: 100, windowSeconds: 3600 },
];

describe.each(storeVariants())('AuthCode limits counted in the store on $name', (variant) => {
  const fresh = freshStorePerTest(variant);
  const { clock } = fresh;

  const admit = (phone = PHONE, callerAddress: string | null = '203.0.113.9', limits = LIMITS) =>
    fresh.ctx.store.outbox.admitAuthCode({ phone, code: '482913', callerAddress }, limits);
  const at = (iso: string) => clock.set(iso);

  it('admits a first message and queues it', async () => {
    const admission = await admit();
    expect(admission).toMatchObject({ admitted: true });
    expect(await fresh.ctx.store.admin.listAuthCodeMessages()).toMatchObject([
      { phone: PHONE, status: 'queued', callerAddress: '203.0.113.9' },
    ]);
  });

  it('one per 60 s per phone: refused until the first leaves the window', async () => {
    await admit();
    at('2030-01-01T00:00:20.000Z');
    expect(await admit()).toEqual({
      admitted: false,
      limit: { scope: 'phone', max: 1, windowSeconds: 60 },
      retryAt: '2030-01-01T00:01:00.000Z',
      retryAfterSeconds: 40,
    });
    expect(await fresh.ctx.store.admin.listAuthCodeMessages()).toHaveLength(1);
    // Another phone is not affected.
    expect(await admit('+963944000001')).toMatchObject({ admitted: true });
    at('2030-01-01T00:01:00.000Z');
    expect(await admit()).toMatchObject({ admitted: true });
  });

  it('three per 10 min per phone, then ten per day: the longest wait is reported', async () => {
    for (const minute of ['00', '02', '04']) {
      at(`2030-01-01T00:${minute}:00.000Z`);
      expect(await admit()).toMatchObject({ admitted: true });
    }
    at('2030-01-01T00:06:00.000Z');
    expect(await admit()).toMatchObject({
      admitted: false,
      limit: { max: 3, windowSeconds: 600 },
      retryAt: '2030-01-01T00:10:00.000Z',
    });
    // Fill the day: 10 messages spread over hours.
    for (let hour = 1; hour <= 7; hour++) {
      at(`2030-01-01T${String(hour).padStart(2, '0')}:00:00.000Z`);
      expect(await admit()).toMatchObject({ admitted: true });
    }
    at('2030-01-01T08:00:00.000Z');
    expect(await admit()).toMatchObject({
      admitted: false,
      limit: { max: 10, windowSeconds: 86400 },
      retryAt: '2030-01-02T00:00:00.000Z',
    });
  });

  it('per calling address, across phone numbers; a call without an address is not counted there', async () => {
    const limits: AuthCodeLimit[] = [{ scope: 'caller', max: 2, windowSeconds: 3600 }];
    expect(await admit('+963944000001', '198.51.100.1', limits)).toMatchObject({ admitted: true });
    expect(await admit('+963944000002', '198.51.100.1', limits)).toMatchObject({ admitted: true });
    expect(await admit('+963944000003', '198.51.100.1', limits)).toMatchObject({
      admitted: false,
      limit: { scope: 'caller' },
    });
    expect(await admit('+963944000003', '198.51.100.2', limits)).toMatchObject({ admitted: true });
    expect(await admit('+963944000004', null, limits)).toMatchObject({ admitted: true });
  });

  it('a global hourly budget across every phone and caller', async () => {
    const limits: AuthCodeLimit[] = [{ scope: 'global', max: 3, windowSeconds: 3600 }];
    for (let i = 0; i < 3; i++)
      expect(await admit(`+96394400000${i}`, `198.51.100.${i}`, limits)).toMatchObject({ admitted: true });
    expect(await admit('+963944000009', '198.51.100.9', limits)).toMatchObject({
      admitted: false,
      limit: { scope: 'global' },
      retryAt: '2030-01-01T01:00:00.000Z',
    });
  });

  it('holds across stores (processes) and under concurrent calls: one of many simultaneous calls passes 1 per 60 s', async () => {
    const others = [await fresh.ctx.reopen(), await fresh.ctx.reopen(), await fresh.ctx.reopen()];
    const stores = [fresh.ctx.store, ...others, fresh.ctx.store, ...others];
    const results = await Promise.all(
      stores.map((store) => store.outbox.admitAuthCode({ phone: PHONE, code: '1234', callerAddress: null }, LIMITS)),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(1);
    expect(await fresh.ctx.store.admin.listAuthCodeMessages()).toHaveLength(1);
  });
});
