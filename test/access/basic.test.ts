// The Basic verifier on its own: header parsing, the remembered answers, and
// the bound on bcrypt checks under way.
import { createBasicVerifier, readBasicCredentials } from '../../src/access/basic';
import { HASHES, PASSWORDS, basic } from './support';

const USERS = new Map(Object.entries(HASHES));

test('reads user and password as UTF-8, the password keeping its colons', () => {
  expect(readBasicCredentials(basic('app-gateway', 'pässwörd: with colon'))).toEqual({ user: 'app-gateway', password: 'pässwörd: with colon' });
  expect(readBasicCredentials(`bAsIc   ${Buffer.from('a:b').toString('base64')}`)).toEqual({ user: 'a', password: 'b' });
  for (const bad of [
    undefined,
    '',
    'Basic',
    'Basic !!',
    `Basic ${Buffer.from('no-colon').toString('base64')}`,
    `Basic ${Buffer.from(':pw').toString('base64')}`,
    'Bearer x',
  ]) {
    expect(readBasicCredentials(bad)).toBeNull();
  }
});

test('a checked header is answered from memory until it expires, right or wrong', async () => {
  let clock = 1_000_000;
  const verify = createBasicVerifier(USERS, () => clock);
  const good = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
  const wrong = basic('sis-alnoor', 'nope');
  const first = verify(good);
  expect(first).toBeInstanceOf(Promise);
  expect(await first).toBe('sis-alnoor');
  expect(verify(good)).toBe('sis-alnoor');
  expect(await verify(wrong)).toBeNull();
  expect(verify(wrong)).toBeNull();
  clock += 61_000;
  expect(verify(good)).toBeInstanceOf(Promise);
});

test('concurrent checks of one header share a bcrypt run; past the bound a new header is refused, not queued', async () => {
  const verify = createBasicVerifier(USERS, Date.now, 1);
  const good = basic('sis-alnoor', PASSWORDS['sis-alnoor']);
  const a = verify(good);
  const b = verify(good);
  expect(a).toBe(b);
  expect(verify(basic('app-gateway', PASSWORDS['app-gateway']))).toBeNull();
  expect(await a).toBe('sis-alnoor');
  expect(await verify(basic('app-gateway', PASSWORDS['app-gateway']))).toBe('app-gateway');
});
