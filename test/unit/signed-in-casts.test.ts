// No `as SignedIn` in src/: a console handler behind the session check is
// handed a typed signed-in context by the route table
// (src/console/route-table.ts), so it never has to tell the compiler that
// someone is signed in.
import { srcFiles } from '../support/src-files';

const CAST = /\bas\s+(?:SignedIn|SignedInView)\b/;

/** `file:line` of every `as SignedIn` (or `as SignedInView`) of a source text. */
function casts(file: string, source: string): string[] {
  return source.split('\n').flatMap((line, index) => (CAST.test(line) ? [`${file}:${index + 1}`] : []));
}

describe('signed-in casts in src/', () => {
  it('has none', () => {
    expect(srcFiles().flatMap(([file, source]) => casts(file, source))).toEqual([]);
  });

  it('finds one, on either form, and not a longer name', () => {
    const source = [
      'const a = view.session as SignedIn;',
      'const b = (view as SignedInView).session;',
      'const c = x as SignedInSomething;',
      'const d = view.session as  SignedIn;',
    ].join('\n');
    expect(casts('x.ts', source)).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:4']);
  });
});
