// The console as the service mounts it: on by default, CONSOLE=false answers
// 404, Secure cookies behind an https PUBLIC_BASE_URL, and the overview's
// figures from the outbox and the workers' heartbeats, escaped.
import request from 'supertest';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';
import { addAccount, completePush, queuePush, signedIn } from './support';

const [sqlite] = storeVariants();

describe('the console in the service', () => {
  let service: OperatedService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('answers 404 everywhere under /console/ with CONSOLE=false', async () => {
    service = await startOperatedService(sqlite, { CONSOLE: 'false' });
    for (const path of ['/console', '/console/', '/console/sign-in', '/console/console.css']) {
      const res = await request(service.app).get(path);
      expect(res.status).toBe(404);
    }
    expect((await request(service.app).post('/console/sign-in').type('form').send({ name: 'x' })).status).toBe(404);
  });

  it('is on by default: the overview sends an unsigned browser to the sign-in page', async () => {
    service = await startOperatedService(sqlite);
    const res = await request(service.app).get('/console/');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in');
    const css = await request(service.app).get('/console/console.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('marks its cookies Secure when PUBLIC_BASE_URL is https', async () => {
    service = await startOperatedService(sqlite, { PUBLIC_BASE_URL: 'https://sns.example.org' });
    const res = await request(service.app).get('/console/sign-in');
    expect(String(res.headers['set-cookie'])).toMatch(
      /sns_console_signin=[^;]+; Path=\/console; HttpOnly; SameSite=Strict; Secure/,
    );
  });

  it('shows the outbox per channel, the errors escaped, and a worker that beats', async () => {
    service = await startOperatedService(sqlite, {});
    const { store } = service;
    await addAccount(store, 'amira', 'viewer');
    const id = await queuePush(store, 'stu-1');
    expect(await completePush(store, id, { status: 'dead', error: 'HTTP 400 <script>alert(1)</script>' })).toBe(true);
    await store.outbox.workerHeartbeat('host-a/123/abcd', new Date().toISOString());
    const browser = await signedIn(service.app, 'amira');
    const page = await browser.agent.get('/console/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h3 id="channel-push">Push notifications</h3>');
    expect(page.text).toContain(
      '<div class="stat given-up on" data-live-box="push.dead"><dt>Dead</dt><dd><a href="/console/messages?channel=push&amp;status=dead" data-live="push.dead">1</a></dd></div>',
    );
    expect(page.text).toContain('HTTP 400 &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('host-a/123/abcd');
    expect(page.text).toContain('Working');
    expect(page.text).toMatch(/<svg viewBox="0 0 720 220" role="img"/);
    await store.outbox.workerStopped('host-a/123/abcd');
    expect((await browser.agent.get('/console/')).text).toContain('No delivery worker has reported in the last minute');
  });
});
