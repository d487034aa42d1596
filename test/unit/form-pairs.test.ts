// readFormPairs (src/wire/http/form-pairs.ts) splits a query or form without
// an escape itself: the same pairs as URLSearchParams, which it stood for.
import { readFormPairs } from '../../src/wire/http/form-pairs';

const viaUrlSearchParams = (encoded: string): Array<[string, string]> => [...new URLSearchParams(encoded)];

describe('readFormPairs', () => {
  it.each([
    '',
    '?',
    '??id=a',
    '?id=dev-bench',
    'id=dev-bench',
    'id=a&id=b&ID=c',
    'id',
    'id=',
    '=',
    '=x',
    '&',
    '&&id=a&&',
    'a=b=c',
    'a+b=c+d&+=+',
    'name=Jos%C3%A9+Ana',
    'bad=%zz%4&x=%',
    'é=ü&€=𝄞',
    'lone=\uD800x&b=\uDC00',
    'k=v&k2&k3=&=v4',
  ])('reads %j as URLSearchParams does', (encoded) => {
    expect(readFormPairs(encoded)).toEqual(viaUrlSearchParams(encoded));
  });
});
