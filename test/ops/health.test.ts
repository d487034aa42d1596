// /healthz says the process is up; /readyz says whether to send it traffic:
// the store answers, its migrations are current, it is not shutting down.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { healthRoutes, type ReadinessSource, type WorkerReadinessSource } from '../../src/health';
import type { MigrationStatus } from '../../src/store';
import { migrationsFor } from '../../src/store/migrations';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

// The release's version, which /healthz names so that an operator sees what runs.
const { version: VERSION } = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as {
  version: string;
};
// Every migration of this release, in order.
const MIGRATIONS = Object.keys(migrationsFor('sqlite'));
const CURRENT: MigrationStatus = { current: true, applied: MIGRATIONS, pending: [], unknown: [] };

describe.each(storeVariants())('health on $name', (variant) => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant);
  });
  afterEach(() => service.stop());

  it('is live and ready while the store answers', async () => {
    const live = await request(service.app).get('/healthz');
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toBe('application/health+json; charset=utf-8');
    expect(live.body).toEqual({ status: 'pass', version: VERSION });
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'pass',
      checks: {
        store: { status: 'pass' },
        migrations: { status: 'pass', output: `applied: ${MIGRATIONS.join(', ')}` },
      },
    });
  });

  it('is not ready once the store is unavailable, and still live', async () => {
    await service.testStore.store.lifecycle.close();
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      status: 'fail',
      checks: { store: { status: 'fail' }, migrations: { status: 'fail', output: 'The data store is unavailable.' } },
    });
    expect((await request(service.app).get('/healthz')).status).toBe(200);
  });

  it('is not ready while a migration of this release is missing', async () => {
    await service.testStore.query('delete from kysely_migration');
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.migrations).toEqual({
      status: 'fail',
      output: `pending migrations: ${MIGRATIONS.join(', ')}`,
    });
  });

  it('is not ready from the moment shutdown begins', async () => {
    await service.shutdown.run('test');
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'fail',
      checks: { shutdown: { status: 'fail', output: 'The service is shutting down.' } },
    });
  });
});

describe('readiness', () => {
  function appWith(source: ReadinessSource, timeoutMs = 200) {
    const app = express();
    app.use(healthRoutes({ store: source, timeoutMs }));
    return app;
  }

  it('flips back and forth with the store', async () => {
    let up = true;
    const app = appWith({ ping: async () => up, migrationStatus: async () => CURRENT });
    expect((await request(app).get('/readyz')).status).toBe(200);
    up = false;
    expect((await request(app).get('/readyz')).body.checks.store).toEqual({
      status: 'fail',
      output: 'The data store does not answer.',
    });
    up = true;
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('fails a check that does not answer in time instead of hanging', async () => {
    const app = appWith(
      { ping: () => new Promise<boolean>(() => undefined), migrationStatus: async () => CURRENT },
      50,
    );
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toEqual({ status: 'fail', output: 'No answer within 50 ms.' });
  });

  it('never shows the text of an unexpected error', async () => {
    const app = appWith({
      ping: async () => true,
      migrationStatus: async () => Promise.reject(new Error('relation "x" at /srv/db.js:3')),
    });
    expect((await request(app).get('/readyz')).body.checks.migrations).toEqual({
      status: 'fail',
      output: 'The check failed.',
    });
  });
});

describe('readiness of the in-process delivery worker', () => {
  const STALL_MS = 60_000;
  const NOW = new Date('2030-01-01T12:00:00.000Z');
  const ago = (ms: number) => new Date(NOW.getTime() - ms);

  function appWith(health: ReturnType<WorkerReadinessSource['health']>, due: string | null) {
    const asked: string[] = [];
    const worker: WorkerReadinessSource = {
      health: () => health,
      oldestDueAt: async () => {
        asked.push('oldestDueAt');
        return due;
      },
      stallMs: STALL_MS,
      now: () => NOW,
    };
    const app = express();
    app.use(
      healthRoutes({ store: { ping: async () => true, migrationStatus: async () => CURRENT }, timeoutMs: 200, worker }),
    );
    return { app, asked };
  }

  it('passes while the worker claims, without asking the store', async () => {
    const { app, asked } = appWith(
      { running: true, startedAt: ago(600_000), lastClaimAt: ago(1_000) },
      '2030-01-01T11:00:00.000Z',
    );
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.worker).toEqual({ status: 'pass' });
    expect(asked).toEqual([]);
  });

  it('passes when the worker has been quiet but nothing is due', async () => {
    const { app } = appWith({ running: true, startedAt: ago(600_000), lastClaimAt: ago(300_000) }, null);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('fails when the worker has claimed nothing for longer than the stall time while work is due', async () => {
    const { app } = appWith(
      { running: true, startedAt: ago(600_000), lastClaimAt: ago(90_000) },
      '2030-01-01T11:59:00.000Z',
    );
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.worker).toEqual({
      status: 'fail',
      output:
        'The delivery worker has claimed nothing for 90 s while messages are due (the oldest since 2030-01-01T11:59:00.000Z).',
    });
    expect(ready.body.checks.store).toEqual({ status: 'pass' });
  });

  it('counts from the start when the worker never claimed', async () => {
    expect(
      (
        await request(
          appWith({ running: true, startedAt: ago(30_000), lastClaimAt: null }, '2030-01-01T11:59:00.000Z').app,
        ).get('/readyz')
      ).status,
    ).toBe(200);
    expect(
      (
        await request(
          appWith({ running: true, startedAt: ago(61_000), lastClaimAt: null }, '2030-01-01T11:59:00.000Z').app,
        ).get('/readyz')
      ).status,
    ).toBe(503);
  });

  it('fails when the worker has stopped', async () => {
    const ready = await request(
      appWith({ running: false, startedAt: ago(600_000), lastClaimAt: ago(1_000) }, null).app,
    ).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.worker).toEqual({ status: 'fail', output: 'The delivery worker has stopped.' });
  });
});

describe.each(storeVariants())('readiness with the in-process worker on $name', (variant) => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant, { WORKER: 'true' });
  });
  afterEach(() => service.stop());

  it('reports the worker, and fails once it stopped while the server still serves', async () => {
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.worker).toEqual({ status: 'pass' });
    await service.delivery?.worker.stop(1000);
    const after = await request(service.app).get('/readyz');
    expect(after.status).toBe(503);
    expect(after.body.checks.worker).toEqual({ status: 'fail', output: 'The delivery worker has stopped.' });
  });
});
