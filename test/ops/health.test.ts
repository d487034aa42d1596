// /healthz says the process is up; /readyz says whether to send it traffic:
// the store answers, its migrations are current, it is not shutting down.
import express from 'express';
import request from 'supertest';
import { healthRoutes, type ReadinessSource } from '../../src/health';
import type { MigrationStatus } from '../../src/store';
import { migrationsFor } from '../../src/store/migrations';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

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
    expect(live.body).toEqual({ status: 'pass' });
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'pass',
      checks: { store: { status: 'pass' }, migrations: { status: 'pass', output: `applied: ${MIGRATIONS.join(', ')}` } },
    });
  });

  it('is not ready once the store is unavailable, and still live', async () => {
    await service.testStore.store.close();
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'fail', checks: { store: { status: 'fail' }, migrations: { status: 'fail', output: 'The data store is unavailable.' } } });
    expect((await request(service.app).get('/healthz')).status).toBe(200);
  });

  it('is not ready while a migration of this release is missing', async () => {
    await service.testStore.query('delete from kysely_migration');
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.migrations).toEqual({ status: 'fail', output: `pending migrations: ${MIGRATIONS.join(', ')}` });
  });

  it('is not ready from the moment shutdown begins', async () => {
    await service.shutdown.run('test');
    const ready = await request(service.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'fail', checks: { shutdown: { status: 'fail', output: 'The service is shutting down.' } } });
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
    expect((await request(app).get('/readyz')).body.checks.store).toEqual({ status: 'fail', output: 'The data store does not answer.' });
    up = true;
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('fails a check that does not answer in time instead of hanging', async () => {
    const app = appWith({ ping: () => new Promise<boolean>(() => undefined), migrationStatus: async () => CURRENT }, 50);
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toEqual({ status: 'fail', output: 'No answer within 50 ms.' });
  });

  it('never shows the text of an unexpected error', async () => {
    const app = appWith({ ping: async () => true, migrationStatus: async () => Promise.reject(new Error('relation "x" at /srv/db.js:3')) });
    expect((await request(app).get('/readyz')).body.checks.migrations).toEqual({ status: 'fail', output: 'The check failed.' });
  });
});
