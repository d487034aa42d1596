import Database from 'better-sqlite3';
import { StoreError, toStoreError } from '../../src/store/errors';

function caught(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function withCode(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('toStoreError', () => {
  it('calls a closed SQLite database unavailable', () => {
    const db = new Database(':memory:');
    db.close();
    const error = toStoreError(caught(() => db.prepare('select 1')));
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ kind: 'unavailable', message: 'The data store is unavailable.' });
    // better-sqlite3 throws from another realm under Jest, so compare by name.
    expect(error.cause).toMatchObject({ name: 'TypeError' });
  });

  it('calls an SQL error a failed request and keeps it as the cause', () => {
    const db = new Database(':memory:');
    const sqlError = caught(() => db.prepare('select * from nowhere'));
    db.close();
    const error = toStoreError(sqlError);
    expect(error).toMatchObject({ kind: 'failed', message: 'The data store could not complete the request.' });
    expect(error.cause).toBe(sqlError);
  });

  it.each([
    ['ECONNREFUSED', withCode('ECONNREFUSED')],
    [
      'a refused dual-stack connect',
      Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: 'ECONNREFUSED' }),
    ],
    [
      'an AggregateError without its own code',
      new AggregateError([withCode('ECONNREFUSED'), withCode('EADDRNOTAVAIL')]),
    ],
    ['an ended pg pool', new Error('Cannot use a pool after calling end on the pool')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['an admin shutdown', withCode('57P01')],
    ['a connection exception', withCode('08006')],
    ['a failed login', withCode('28P01')],
    ['a destroyed Kysely', new Error('driver has already been destroyed')],
    ['a wrapped refusal', new Error('outer', { cause: withCode('ECONNREFUSED') })],
    ['an SQLite lock another connection held past the wait', withCode('SQLITE_BUSY', 'database is locked')],
    ['an SQLite lock during recovery', withCode('SQLITE_BUSY_RECOVERY', 'database is locked')],
  ])('calls %s unavailable', (_, cause) => {
    expect(toStoreError(cause).kind).toBe('unavailable');
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['a plain error', new Error('unexpected')],
    ['a thrown string', 'text'],
  ])('calls %s a failed request', (_, cause) => {
    expect(toStoreError(cause).kind).toBe('failed');
  });

  it('passes a StoreError through unchanged', () => {
    const original = new StoreError('unavailable');
    expect(toStoreError(original)).toBe(original);
    expect(original.name).toBe('StoreError');
    expect(original).toBeInstanceOf(Error);
  });
});
