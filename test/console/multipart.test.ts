// The console's multipart reader (src/console/multipart.ts): the roster
// upload's bounds and the forms it refuses.
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { MultipartError, readMultipart, streamMultipart } from '../../src/console/multipart';

const LIMITS = { maxBytes: 1000, maxParts: 3, maxFieldBytes: 20 };

function request(body: string | Buffer, boundary = 'XyZ', pieces?: number): Request {
  const whole = Buffer.from(body);
  const split: Buffer[] = [];
  const size = pieces === undefined ? whole.length : Math.max(1, Math.ceil(whole.length / pieces));
  for (let at = 0; at < whole.length || split.length === 0; at += size) split.push(whole.subarray(at, at + size));
  const stream = Readable.from(split) as unknown as Request;
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

  it('reads a form that arrives in pieces of any size, a delimiter split across two', async () => {
    const body = `preamble\r\n${part('csrf', 'tok')}${part('file', 'a\r\n--Xy\r\n-XyZ,b\r\n--'.repeat(20), 'a.csv')}--XyZ--\r\n`;
    for (const pieces of [1, 3, 7, body.length]) {
      const form = await readMultipart(request(body, 'XyZ', body.length / pieces), { ...LIMITS, maxBytes: 2000 });
      expect(form.fields.get('csrf')).toBe('tok');
      expect(form.file?.data.toString('utf8')).toBe('a\r\n--Xy\r\n-XyZ,b\r\n--'.repeat(20));
    }
  });

  it('hands the file to its sink as it arrives, one piece at a time, with the fields read before it', async () => {
    const content = 'r'.repeat(900);
    let writing = 0;
    let most = 0;
    const written: Buffer[] = [];
    let before: ReadonlyMap<string, string> | null = null;
    const form = await streamMultipart(
      request(`${part('csrf', 'tok')}${part('file', content, 'a.csv')}${part('collection', 'x')}--XyZ--`, 'XyZ', 50),
      { ...LIMITS, maxBytes: 2000 },
      (_field, _name, fields) => {
        before = fields;
        return {
          async write(bytes) {
            most = Math.max(most, ++writing);
            await new Promise((resolve) => setTimeout(resolve, 1));
            written.push(Buffer.from(bytes));
            writing--;
          },
        };
      },
    );
    expect(before).toEqual(new Map([['csrf', 'tok']]));
    expect(form.file).toEqual({ field: 'file', fileName: 'a.csv', size: 900 });
    expect(form.fields.get('collection')).toBe('x');
    expect(Buffer.concat(written).toString()).toBe(content);
    expect(written.length).toBeGreaterThan(5);
    expect(most).toBe(1);
  });

  it("refuses the form with the sink's error, and drains the rest", async () => {
    const req = request(`${part('file', 'x'.repeat(500), 'a.csv')}--XyZ--`, 'XyZ', 100);
    const refusal = new MultipartError('too_large', 'too big');
    await expect(streamMultipart(req, LIMITS, () => ({ write: () => Promise.reject(refusal) }))).rejects.toBe(refusal);
    await new Promise((resolve) => req.once('end', resolve));
  });

  it('refuses a form whose sender went away before its end', async () => {
    const req = new Readable({ read() {} }) as unknown as Request & Readable;
    Object.assign(req, { headers: { 'content-type': 'multipart/form-data; boundary=XyZ' } });
    const read = streamMultipart(req, LIMITS, () => ({ write: () => Promise.resolve() }));
    req.push(Buffer.from(part('file', 'x'.repeat(100), 'a.csv')));
    setImmediate(() => req.destroy());
    await expect(read).rejects.toMatchObject({ kind: 'malformed' });
  });
});
