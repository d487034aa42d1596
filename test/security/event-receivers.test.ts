// A school's event receiver is a URL written by an operator's console
// account, the admin API or a roster import, and the event worker POSTs to
// it from inside the deployment (docs/security.md#review-2026-11-28): unless
// EVENTS_ALLOW_PRIVATE, it reaches public addresses only, checked on the
// address it connects to, so that neither an address in the URL nor a name
// that resolves to one (localhost, a rebinding DNS) reaches loopback, a
// private network or a cloud's metadata service.
import { isPublicAddress, privateLiteral } from '../../src/delivery/events/public-address';
import { storeVariants } from '../support/stores';
import { Receiver, SECRET } from '../delivery/support/event-receiver';
import { eventWorker, queuePush, SCHOOL, startHarness, type Harness } from '../delivery/support/harness';

describe('which addresses a receiver may be at', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::', false],
    ['::1', false],
    ['::127.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:a9fe:a9fe', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['2002:7f00:1::', false],
    ['64:ff9b::7f00:1', false],
    ['ff02::1', false],
    ['not an address', false],
  ])('%s: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('reads an address in a URL as WHATWG URL writes it (decimal, hex, bracketed, mapped)', () => {
    expect(privateLiteral('https://2130706433/x')).toBe('127.0.0.1');
    expect(privateLiteral('https://0x7f.1/x')).toBe('127.0.0.1');
    expect(privateLiteral('https://[::ffff:169.254.169.254]/')).toBe('::ffff:a9fe:a9fe');
    expect(privateLiteral('https://[0:0:0:0:0:0:0:1]:8443/')).toBe('::1');
    expect(privateLiteral('https://sis.school.example/hooks')).toBeNull();
    expect(privateLiteral('https://8.8.8.8/hooks')).toBeNull();
  });
});

describe.each(storeVariants())('event receivers at non-public addresses on $name', (variant) => {
  let h: Harness;
  let receiver: Receiver;
  beforeEach(async () => {
    h = await startHarness(variant);
    receiver = new Receiver(SECRET);
    receiver.nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);
    await receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await h.close();
  });

  /** One claim by a worker allowed private receivers or not, and its deliveries. */
  const deliverOnce = async (allowPrivate: boolean) => {
    const events = eventWorker(h, { concurrency: 4, allowPrivate });
    try {
      expect(await events.runOnce()).toBe(1);
    } finally {
      await events.stop(1000);
    }
  };

  const lastErrors = async () =>
    (await h.ctx.query<{ last_error: string | null }>('select last_error from event_outbox')).map((r) => r.last_error);

  it.each([
    ['an address in the URL', (url: string) => url],
    ['a name that resolves to loopback', (url: string) => url.replace('127.0.0.1', 'localhost')],
    ['an IPv4-mapped IPv6 address', (url: string) => url.replace('127.0.0.1', '[::ffff:127.0.0.1]')],
  ])('is never reached at %s, and the event says why', async (_what, urlOf) => {
    await h.ctx.store.admin.putEventSubscription(SCHOOL, { url: urlOf(receiver.url), secret: SECRET });
    await queuePush(h);
    await deliverOnce(false);
    expect(receiver.deliveries).toEqual([]);
    const [error] = await lastErrors();
    expect(error).toMatch(
      /^network: .*(127\.0\.0\.1|::1|::ffff:7f00:1) is not a public address \(EVENTS_ALLOW_PRIVATE\)/,
    );
  });

  it('is reached with EVENTS_ALLOW_PRIVATE', async () => {
    await h.ctx.store.admin.putEventSubscription(SCHOOL, { url: receiver.url, secret: SECRET });
    await queuePush(h);
    await deliverOnce(true);
    expect(receiver.deliveries.map((d) => d.verified)).toEqual([true]);
  });
});
