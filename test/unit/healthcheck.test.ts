// scripts/healthcheck.js, the container image's HEALTHCHECK
// (docs/operating.md#container-image): where it asks, and its verdict on a
// 200, on another status, on no answer and on nobody listening.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Target {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly timeoutMs: number;
}
interface Healthcheck {
  target(env: Record<string, string | undefined>, requestPath?: string): Target;
  check(target: Target): Promise<string | null>;
}
const { check, target } = jest.requireActual<Healthcheck>('../../scripts/healthcheck.js');

describe('the health check script', () => {
  test('asks /healthz on PORT, on loopback when the service listens on every address', () => {
    expect(target({})).toEqual({ host: '127.0.0.1', port: 8080, path: '/healthz', timeoutMs: 3000 });
    expect(target({ HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({ host: '127.0.0.1', port: 9000 });
    expect(target({ HOST: '::' })).toMatchObject({ host: '127.0.0.1' });
    expect(target({ HOST: '10.1.2.3' })).toMatchObject({ host: '10.1.2.3' });
    expect(target({ HOST: '[::1]' })).toMatchObject({ host: '::1' });
  });

  test("the worker's check: another path, HEALTHCHECK_PORT before PORT, and a bad value falls back", () => {
    expect(target({ PORT: '8080', HEALTHCHECK_PORT: '9464' }, '/metrics')).toMatchObject({
      port: 9464,
      path: '/metrics',
    });
    expect(target({ PORT: 'eighty', HEALTHCHECK_TIMEOUT_MS: '-5' }, 'metrics')).toMatchObject({
      port: 8080,
      path: '/healthz',
      timeoutMs: 3000,
    });
  });

  describe('against a server', () => {
    let server: http.Server;
    let port = 0;
    let status = 200;
    let answer = true;

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        if (!answer) return;
        res.writeHead(req.url === '/healthz' ? status : 404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    test('healthy on a 200; unhealthy, with the reason, on any other status', async () => {
      status = 200;
      expect(await check(target({ PORT: String(port) }))).toBeNull();
      status = 503;
      expect(await check(target({ PORT: String(port) }))).toBe(`/healthz on port ${port} answered 503`);
      expect(await check(target({ PORT: String(port) }, '/metrics'))).toBe(`/metrics on port ${port} answered 404`);
    });

    test('unhealthy when the service does not answer within the timeout', async () => {
      answer = false;
      try {
        expect(await check(target({ PORT: String(port), HEALTHCHECK_TIMEOUT_MS: '200' }))).toBe(
          `/healthz on port ${port} failed: no answer within 200 ms`,
        );
      } finally {
        answer = true;
      }
    });

    test('unhealthy when nothing listens', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const freePort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expect(await check(target({ PORT: String(freePort) }))).toMatch(
        new RegExp(`^/healthz on port ${freePort} failed: .*ECONNREFUSED`),
      );
    });
  });
});
