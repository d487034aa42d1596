// Roster uploads are written to the store as they arrive (docs/console.md#importing-a-roster), up to
// 32 MiB each before they are refused or kept: how many are received at once is bounded per account
// and per process (docs/security.md#review-2026-11-28), so that one account's many slow uploads
// cannot fill the store. An upload over the bound is refused before its body is read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createImportJobs, IMPORT_RECEIVING_MAX, IMPORT_RECEIVING_PER_ACCOUNT } from '../../src/console/import-jobs';
import type { ConsoleStore } from '../../src/store';
import { storeVariants } from '../support/stores';
import { hiddenField, signedIn, useConsoleWorld } from '../console/support';

describe('uploads received at once', () => {
  it('are at most IMPORT_RECEIVING_PER_ACCOUNT an account and IMPORT_RECEIVING_MAX in all, each place freed once', () => {
    const jobs = createImportJobs({ store: {} as ConsoleStore, now: () => new Date() });
    const mine = Array.from({ length: IMPORT_RECEIVING_PER_ACCOUNT }, () => jobs.receive('olga'));
    expect(mine.every((r) => r !== null)).toBe(true);
    expect(jobs.receive('olga')).toBeNull();
    const others = Array.from({ length: IMPORT_RECEIVING_MAX - IMPORT_RECEIVING_PER_ACCOUNT }, (_, i) =>
      jobs.receive(`op${i}`),
    );
    expect(others.every((r) => r !== null)).toBe(true);
    expect(jobs.receive('somebody')).toBeNull();
    mine[0]?.release();
    mine[0]?.release();
    expect(jobs.receive('olga')).not.toBeNull();
    expect(jobs.receive('olga')).toBeNull();
    expect(jobs.receive('somebody')).toBeNull();
  });
});

describe.each(storeVariants())('roster uploads under attack on $name', (variant) => {
  const world = useConsoleWorld(variant);

  const post = async (body: string) => {
    const olga = await signedIn(world.harness.app, 'olga');
    const csrf = await olga.csrf();
    const answer = await olga.agent
      .post('/console/import')
      .set('content-type', 'multipart/form-data; boundary=XyZ')
      .send(Buffer.from(body.replaceAll('CSRF', csrf)));
    const chunks = await world.ctx.query('select upload_id from console_upload_chunks');
    const uploads = await world.ctx.query<{ file_name: string }>('select file_name from console_uploads');
    return { status: answer.status, chunks: chunks.length, names: uploads.map((u) => u.file_name) };
  };
  const field = (name: string, value: string) =>
    `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const file = (fileName: string, headers = '') =>
    `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n${headers}\r\nid,school\r\n1,x\r\n`;

  it('keeps nothing of a file sent before the token, nor of a hostile form', async () => {
    expect(await post(`${file('a.csv')}${field('csrf', 'CSRF')}--XyZ--\r\n`)).toEqual({
      status: 403,
      chunks: 0,
      names: [],
    });
    for (const [what, body] of [
      ['a control character in the name', `${field('csrf', 'CSRF')}${file('a\u0007b.csv')}--XyZ--\r\n`],
      ['a right-to-left override in the name', `${field('csrf', 'CSRF')}${file('a\u202Evsc.json')}--XyZ--\r\n`],
      [
        'part headers over 4 KiB',
        `${field('csrf', 'CSRF')}${file('a.csv', `X-Pad: ${'p'.repeat(5000)}\r\n`)}--XyZ--\r\n`,
      ],
      ['no closing boundary', `${field('csrf', 'CSRF')}${file('a.csv')}`],
      ['six parts', `${field('csrf', 'CSRF')}${['a', 'b', 'c', 'd', 'e'].map((n) => field(n, n)).join('')}--XyZ--\r\n`],
    ]) {
      expect([what, await post(body)]).toEqual([what, { status: 400, chunks: 0, names: [] }]);
    }
  });

  it('keeps a name with path separators as its last part only', async () => {
    const answer = await post(`${field('csrf', 'CSRF')}${file('..\\..\\etc/cron.d/roster.csv')}--XyZ--\r\n`);
    expect(answer.status).toBe(303);
    expect(answer.names).toEqual(['roster.csv']);
  });

  it('refuses the one past the bound before reading it, and takes the next once one has ended', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const csrf = await olga.csrf();
    const server = http.createServer(world.harness.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const held: http.ClientRequest[] = [];
    try {
      // Uploads that send their token and a megabyte and a half of file, then never finish.
      for (let i = 0; i < IMPORT_RECEIVING_PER_ACCOUNT; i++) {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/console/import',
          headers: { cookie: olga.sessionCookie, 'content-type': 'multipart/form-data; boundary=XyZ' },
        });
        req.on('error', () => undefined);
        req.write(
          `--XyZ\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${csrf}\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nid,school\r\n`,
        );
        req.write('1,x\r\n'.repeat(300_000));
        held.push(req);
      }
      const receivingNow = async () =>
        (
          await world.ctx.query<{ n: number | string }>(
            'select count(distinct upload_id) as n from console_upload_chunks',
          )
        )[0]?.n;
      for (let waited = 0; Number(await receivingNow()) < IMPORT_RECEIVING_PER_ACCOUNT && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(Number(await receivingNow())).toBe(IMPORT_RECEIVING_PER_ACCOUNT);

      const upload = async () => {
        const form = await olga.agent.get('/console/import');
        return olga.agent
          .post('/console/import')
          .field('csrf', hiddenField(form.text))
          .attach(
            'file',
            Buffer.from('id,school,fullName,classId,active\n1001,https://school-a.example,A B,7A,1'),
            'p.csv',
          );
      };
      const refused = await upload();
      expect(refused.status).toBe(429);
      expect(refused.headers.connection).toBe('close');
      const audit = await world.ctx.store.admin.listAuditEntries({ operation: 'import-check', limit: 5, offset: 0 });
      expect(audit.items.map((e) => e.reason)).toContain('busy');

      for (const req of held) req.destroy();
      // Their requests ended: their chunks go, and their places are free again.
      for (let waited = 0; Number(await receivingNow()) > 0 && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(Number(await receivingNow())).toBe(0);
      expect((await upload()).status).toBe(303);
    } finally {
      for (const req of held) req.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
