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

describe.each(storeVariants())('many uploads at once by one account on $name', (variant) => {
  const world = useConsoleWorld(variant);

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
