// The console's multipart reader (src/console/multipart.ts): the roster
// upload's bounds and the forms it refuses.
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { MultipartError, readMultipart } from '../../src/console/multipart';

const LIMITS = { maxBytes: 1000, maxParts: 3, maxFieldBytes: 20 };

function request(body: string | Buffer, boundary = 'XyZ'): Request {
  const stream = Readable.from([Buffer.from(body)]) as unknown as Request;
  Object.assign(stream, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  return stream;
}

const part = (name: string, value: string, fileName?: string) =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"${fileName === undefined ? '' : `; filename="${fileName}"`}\r\n${
    fileName === undefined ? '' : 'Content-Type: text/csv\r\n'
  }\r\n${value}\r\n`;

describe('readMultipart', () => {
  it('reads the fields and the one file, bytes as sent', async () => {
    const form = await readMultipart(
      request(`${part('csrf', 'tok')}${part('file', 'id,name\r\n1,é', 'a.csv')}--XyZ--\r\n`),
      LIMITS,
    );
    expect(form.fields.get('csrf')).toBe('tok');
    expect(form.file?.fileName).toBe('a.csv');
    expect(form.file?.data.toString('utf8')).toBe('id,name\r\n1,é');
  });

  it.each([
    ['no boundary in its type', request('x', '')],
    ['no closing boundary', request(part('csrf', 'tok'))],
    ['more parts than allowed', request(`${part('a', '1')}${part('b', '2')}${part('c', '3')}${part('d', '4')}--XyZ--`)],
    ['two files', request(`${part('f', '1', 'a.csv')}${part('g', '2', 'b.csv')}--XyZ--`)],
    ['a long field', request(`${part('csrf', 'x'.repeat(21))}--XyZ--`)],
    ['a part without a name', request('--XyZ\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XyZ--')],
  ])('refuses a form with %s', async (_what, req) => {
    await expect(readMultipart(req, LIMITS)).rejects.toMatchObject({ kind: 'malformed' });
  });

  it('refuses a body over the bound, declared or not', async () => {
    const big = `${part('file', 'x'.repeat(1200), 'a.csv')}--XyZ--`;
    await expect(readMultipart(request(big), LIMITS)).rejects.toBeInstanceOf(MultipartError);
    await expect(readMultipart(request(big), LIMITS)).rejects.toMatchObject({ kind: 'too_large' });
    const declared = request('');
    declared.headers['content-length'] = '5000';
    await expect(readMultipart(declared, LIMITS)).rejects.toMatchObject({ kind: 'too_large' });
  });
});
