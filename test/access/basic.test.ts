// The Basic verifier on its own: header parsing, the remembered answers, the
// failed-login throttle and the bound on bcrypt checks waiting.
import bcrypt from 'bcryptjs';
import { MAX_CACHED, createBasicVerifier, readBasicCredentials, type BasicOutcome } from '../../src/access/basic';
import { createBcryptPool, type BcryptPool } from '../../src/access/bcrypt-pool';
import { createLoginThrottle, type LoginThrottleOptions } from '../../src/access/login-throttle';
import { HASHES, PASSWORDS, basic } from './support';

const USERS = new Map(Object.entries(HASHES));

/** A pool checking on the main thread, counting its checks; `capacity` checks at once, then null. */
function countingPool(capacity = Infinity) {
  const pool = {
    checks: 0,
    running: 0,
    started: 0,
    compare(password: string, hash: string): Promise<boolean> | null {
      if (pool.running >= capacity) return null;
      pool.checks++;
      pool.running++;
      return bcrypt.compare(password, hash).finally(() => pool.running--);
    },
    close: () => Promise.resolve(),
  };
  return pool satisfies BcryptPool;
}

function verifier(options: { now?: () => number; capacity?: number; throttle?: LoginThrottleOptions } = {}) {
  const pool = countingPool(options.capacity);
  const verify = createBasicVerifier(USERS, {
    pool,
    throttle: createLoginThrottle(options.throttle),
    now: options.now,
  });
  return { pool, verify };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

test('reads user and password as UTF-8, the password keeping its colons', () => {
  expect(readBasicCredentials(basic('app-gateway', 'pässwörd: with colon'))).toEqual({
    user: 'app-gateway',
    password: 'pässwörd: with colon',
  });
  expect(readBasicCredentials(`bAsIc   ${b64('a:b')}`)).toEqual({ user: 'a', password: 'b' });
  for (const bad of [
    undefined,
    '',
    'Basic',
    'Basic !!',
    `Basic ${b64('no-colon')}`,
    `Basic ${b64(':pw')}`,
    'Bearer x',
  ]) {
    expect(readBasicCredentials(bad)).toBeNull();
  }
});

test('only RFC 4648 base64, padded, with nothing after the padding', () => {
  const token = b64('user:pw?>'); // dXNlcjpwdz8+: uses + ... and needs no padding
  expect(readBasicCredentials(`Basic ${token}`)).toEqual({ user: 'user', password: 'pw?>' });
  const padded = b64('user:p'); // dXNlcjpw
  const twoPad = b64('user:pwd12'); // ends with ==
  expect(twoPad.endsWith('=')).toBe(true);
  expect(readBasicCredentials(`Basic ${twoPad}`)).toEqual({ user: 'user', password: 'pwd12' });
  for (const bad of [
    `Basic ${twoPad}junk`, // trailing junk after the padding
    `Basic ${twoPad}=`, // one padding too many
    `Basic ${twoPad.replace(/=+$/, '')}`, // padding left out
    `Basic ${token.replace('+', '-')}`, // the URL-safe alphabet
    `Basic ${token.replace('8', '_')}`,
    `Basic ${padded}.`,
    `Basic ${b64('user:pw1').replace(/.=$/, (m) => `${String.fromCharCode(m.charCodeAt(0) + 1)}=`)}`, // bits left over
  ]) {
    expect(readBasicCredentials(bad)).toBeNull();
  }
});

test('says why credentials were not accepted: missing, malformed or wrong (the same for an unknown user)', async () => {
  const { verify } = verifier();
  expect(verify(undefined, '10.0.0.1')).toEqual({ user: null, why: 'missing' });
  expect(verify('Bearer abc', '10.0.0.1')).toEqual({ user: null, why: 'missing' });
  expect(verify('Basic !!', '10.0.0.1')).toEqual({ user: null, why: 'malformed' });
  expect(verify(`Basic ${b64('sis-alnoor:xy')}junk`, '10.0.0.1')).toEqual({ user: null, why: 'malformed' });
  expect(await verify(basic('sis-alnoor', 'nope'), '10.0.0.1')).toEqual({ user: null, why: 'wrong' });
  expect(await verify(basic('nobody', 'nope'), '10.0.0.1')).toEqual({ user: null, why: 'wrong' });
  expect(await verify(basic('sis-alnoor', PASSWORDS['sis-alnoor']), '10.0.0.1')).toEqual({ user: 'sis-alnoor' });
});

test('a checked header is answered from memory until it expires, right or wrong: a repeated wrong header never reruns bcrypt', async () => {
  let clock = 1_000_000;
  const { pool, verify } = verifier({ now: () => clock });
  const good = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
  const wrong = basic('sis-alnoor', 'nope');
  const first = verify(good, '10.0.0.1');
  expect(first).toBeInstanceOf(Promise);
  expect(await first).toEqual({ user: 'sis-alnoor' });
  expect(verify(good, '10.0.0.1')).toEqual({ user: 'sis-alnoor' });
  expect(await verify(wrong, '10.0.0.1')).toEqual({ user: null, why: 'wrong' });
  for (let i = 0; i < 50; i++) expect(verify(wrong, `10.0.${i}.1`)).toEqual({ user: null, why: 'wrong' });
  expect(pool.checks).toBe(2);
  clock += 61_000;
  expect(verify(good, '10.0.0.1')).toBeInstanceOf(Promise);
});

test('the remembered headers are bounded', async () => {
  // A pool that answers at once: only the cache is under test.
  const fast = createBasicVerifier(new Map([['u', bcrypt.hashSync('p', 4)]]), {
    pool: { started: 0, compare: () => Promise.resolve(false), close: () => Promise.resolve() },
    throttle: createLoginThrottle({ perAddress: Infinity, perUser: Infinity }),
  });
  for (let i = 0; i < MAX_CACHED * 2; i++) await fast(basic('u', `wrong-${i}`), '10.0.0.1');
  // The first ones were forgotten (checked again: a promise), the last ones are remembered.
  expect(fast(basic('u', 'wrong-0'), '10.0.0.1')).toBeInstanceOf(Promise);
  expect(fast(basic('u', `wrong-${MAX_CACHED * 2 - 1}`), '10.0.0.1')).toEqual({ user: null, why: 'wrong' });
});

test('concurrent checks of one header share a bcrypt run; past the pool bound a new header is refused with a wait, not queued', async () => {
  const { pool, verify } = verifier({ capacity: 1 });
  const good = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
  const a = verify(good, '10.0.0.1');
  const b = verify(good, '10.0.0.2');
  expect(a).toBe(b);
  expect(verify(basic('app-gateway', PASSWORDS['app-gateway']), '10.0.0.3')).toEqual({
    user: null,
    why: 'busy',
    retryAfterSeconds: 1,
  });
  expect(await a).toEqual({ user: 'sis-alnoor' });
  expect(await verify(basic('app-gateway', PASSWORDS['app-gateway']), '10.0.0.3')).toEqual({ user: 'app-gateway' });
  expect(pool.checks).toBe(2);
});

test('past 10 failed logins a minute from an address (an IPv6 /64 as one), its new headers are refused without bcrypt', async () => {
  let clock = 6_000_000;
  const { pool, verify } = verifier({ now: () => clock });
  for (let i = 0; i < 10; i++)
    expect(await verify(basic(`guess-${i}`, 'x'), `2001:db8:1:2::${i + 1}`)).toEqual({ user: null, why: 'wrong' });
  expect(pool.checks).toBe(10);
  clock += 15_000;
  const refused = verify(basic('sis-alnoor', PASSWORDS['sis-alnoor']), '2001:db8:1:2:ffff::9') as BasicOutcome;
  expect(refused).toEqual({ user: null, why: 'throttled', retryAfterSeconds: 45 });
  expect(pool.checks).toBe(10);
  // Another address, the same user: checked.
  expect(await verify(basic('sis-alnoor', PASSWORDS['sis-alnoor']), '2001:db8:1:3::1')).toEqual({ user: 'sis-alnoor' });
  // The next window: checked again.
  clock += 45_000;
  expect(await verify(basic('sis-alnoor', PASSWORDS['sis-alnoor']), '2001:db8:1:2::1')).toEqual({ user: 'sis-alnoor' });
});

test('past 20 failed logins a minute for a name from new addresses, that name waits, except from addresses it logged in from; other users are not touched', async () => {
  const clock = 12_000_000;
  const { pool, verify } = verifier({ now: () => clock });
  const right = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
  expect(await verify(right, '192.0.2.1')).toEqual({ user: 'sis-alnoor' });
  for (let i = 0; i < 20; i++)
    expect(await verify(basic('sis-alnoor', `guess-${i}`), `198.51.100.${i + 1}`)).toEqual({
      user: null,
      why: 'wrong',
    });
  const checks = pool.checks;
  // From a new address: not checked, even with the right password (in a header not remembered).
  expect(verify(right.replace('Basic', 'basic'), '203.0.113.1')).toEqual({
    user: null,
    why: 'throttled',
    retryAfterSeconds: 60,
  });
  // From the address it logged in from, with a header not remembered yet (a new password): checked.
  expect(await verify(basic('sis-alnoor', 'changed'), '192.0.2.1')).toEqual({ user: null, why: 'wrong' });
  // Another user from another address: checked and let in.
  expect(await verify(basic('app-gateway', PASSWORDS['app-gateway']), '203.0.113.2')).toEqual({ user: 'app-gateway' });
  expect(pool.checks).toBe(checks + 2);
});

test('the throttle keeps a bounded number of keys', () => {
  const throttle = createLoginThrottle({ maxKeys: 1000 });
  for (let i = 0; i < 100_000; i++)
    throttle.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, `user-${i}`, 1_000);
  expect(throttle.size).toBeLessThanOrEqual(2000);
});

describe('the bcrypt threads', () => {
  let pool: BcryptPool;
  afterEach(async () => {
    await pool.close();
  });

  test('check a password off the main thread, at most their queue length at a time, and end on close', async () => {
    pool = createBcryptPool({ threads: 1, queuePerThread: 2 });
    const hash = HASHES['sis-alnoor'];
    const checks = [pool.compare(PASSWORDS['sis-alnoor'], hash), pool.compare('wrong', hash)] as Promise<boolean>[];
    expect(pool.compare('third', hash)).toBeNull();
    expect(await Promise.all(checks)).toEqual([true, false]);
    expect(pool.started).toBe(1);
    expect(await pool.compare('x', 'not a hash')).toBe(false);
    await pool.close();
    expect(pool.started).toBe(0);
    expect(pool.compare('x', hash)).toBeNull();
  });
});

// Concurrent wrong passwords once all read the failure count before any had raised it.
test('a burst of 40 concurrent wrong passwords from one address gets at most its 10 checks', async () => {
  const { pool, verify } = verifier();
  const outcomes = await Promise.all(
    Array.from({ length: 40 }, (_, i) => Promise.resolve(verify(basic('sis-alnoor', `guess-${i}`), '10.0.0.1'))),
  );
  expect(pool.checks).toBe(10);
  expect(outcomes.filter((o) => 'why' in o && o.why === 'wrong')).toHaveLength(10);
  expect(outcomes.filter((o) => 'why' in o && o.why === 'throttled')).toHaveLength(30);
});

test('an attempt the pool had no room for, or the budget refused, is not counted as a failure', () => {
  const throttle = createLoginThrottle();
  const pool = countingPool(0);
  const verify = createBasicVerifier(USERS, { pool, throttle });
  for (let i = 0; i < 30; i++)
    expect(verify(basic('sis-alnoor', `busy-${i}`), '10.0.0.1')).toMatchObject({ why: 'busy' });
  for (let i = 0; i < 30; i++)
    expect(verify(basic('sis-alnoor', `spent-${i}`), '10.0.0.1', () => 5)).toMatchObject({ why: 'limit' });
  expect(pool.checks).toBe(0);
  expect(throttle.refused('10.0.0.1', 'sis-alnoor', Date.now())).toBeNull();
});
