import { prepareQuery } from '../../src/store/connection/prepared';
import { compileOnly } from '../support/compile-only';

interface Db {
  t: { a: string; b: string; c: number };
}

const db = compileOnly<Db>('sqlite');

describe('prepareQuery', () => {
  it('keeps constants and swaps each named parameter in its place', () => {
    const query = prepareQuery(['b', 'a'], (p) =>
      db.selectFrom('t').select('c').where('a', '=', p.a).where('c', '=', 7).where('b', '=', p.b).where('a', '!=', p.a),
    );
    const compiled = query({ a: 'A', b: 'B' });
    expect(compiled.sql).toBe('select "c" from "t" where "a" = ? and "c" = ? and "b" = ? and "a" != ?');
    expect(compiled.parameters).toEqual(['A', 7, 'B', 'A']);
    expect(query({ a: 'x', b: null }).parameters).toEqual(['x', 7, null, 'x']);
  });

  it('refuses a parameter the query does not use', () => {
    expect(() => prepareQuery(['a', 'unused'], (p) => db.selectFrom('t').select('c').where('a', '=', p.a))).toThrow(
      /unused/,
    );
  });
});
