// Graceful shutdown: stop accepting, finish the requests in flight (within
// the deadline), then run the registered closers, the store last.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadServiceModel } from '../../src/contract';
import { createShutdown } from '../../src/lifecycle';
import type { Operations } from '../../src/operations';
import { createApp } from '../../src/server';
import { listen } from '../../src/service';

interface Gate {
  readonly entered: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let enter!: () => void;
  let open!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  gate.current = { enter, opened };
  return { entered, open };
}
gate.current = null as { enter: () => void; opened: Promise<void> } | null;

async function startServer(): Promise<{ server: Server; url: string }> {
  const operations = {
    async GetTokenDevice({ id: deviceId }: { id: string | null }) {
      const current = gate.current;
      if (current !== null) {
        current.enter();
        await current.opened;
      }
      return `token-of-${deviceId}`;
    },
  } as unknown as Operations;
  const app = createApp({
    endpoints: await loadServiceModel('http://tempuri.org/'),
    operations,
    logger: pino({ level: 'silent' }),
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    operationTimeoutMs: 10_000,
    helpPages: false,
  });
  const server = await listen(app, 0, '127.0.0.1');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const tokenPath = '/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1';

/** A listening server under a shutdown whose first closer (so the last to run) is the store. */
async function serverUnderShutdown(timeoutMs: number) {
  const { server, url } = await startServer();
  const steps: string[] = [];
  const shutdown = createShutdown({ logger: pino({ level: 'silent' }), timeoutMs });
  shutdown.addServer(server);
  shutdown.register('store', () => {
    steps.push('store closed');
  });
  return { server, url, shutdown, steps };
}

describe('graceful shutdown', () => {
  afterEach(() => {
    gate.current = null;
  });

  it('finishes a request in flight, refuses new connections, then closes in reverse order', async () => {
    const { server, url, shutdown, steps } = await serverUnderShutdown(5000);
    shutdown.register('worker', async () => {
      steps.push('worker stopped');
    });

    // The server's side of the answer: written in full before anything closes.
    server.on('request', (_req, res: ServerResponse) => res.on('finish', () => steps.push('answered')));
    const slow = gate();
    const inFlight = fetch(`${url}${tokenPath}`).then(async (res) => ({ status: res.status, body: await res.text() }));
    await slow.entered;

    const done = shutdown.run('SIGTERM');
    expect(shutdown.draining).toBe(true);
    await expect(fetch(`${url}${tokenPath}`)).rejects.toThrow();
    expect(steps).toEqual([]);

    slow.open();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('token-of-dev-1');
    await expect(done).resolves.toEqual({ clean: true });
    expect(steps).toEqual(['answered', 'worker stopped', 'store closed']);
    expect(server.listening).toBe(false);
  });

  it('does not wait for idle keep-alive connections', async () => {
    const { url, shutdown } = await serverUnderShutdown(5000);
    // fetch keeps its connection open for reuse.
    expect((await fetch(`${url}${tokenPath}`)).status).toBe(200);
    const started = Date.now();
    await expect(shutdown.run('SIGTERM')).resolves.toEqual({ clean: true });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('cuts off what is still running at the deadline, and still closes the store', async () => {
    const { url, shutdown, steps } = await serverUnderShutdown(200);
    shutdown.register('stuck worker', () => new Promise<void>(() => undefined));
    shutdown.register('broken', () => {
      throw new Error('boom');
    });

    const stuck = gate();
    const inFlight = fetch(`${url}${tokenPath}`).then(
      () => 'answered',
      () => 'cut off',
    );
    await stuck.entered;
    await expect(shutdown.run('SIGTERM')).resolves.toEqual({ clean: false });
    expect(await inFlight).toBe('cut off');
    expect(steps).toEqual(['store closed']);
    stuck.open();
  }, 10_000);

  it('runs once however often it is asked', async () => {
    const shutdown = createShutdown({ logger: pino({ level: 'silent' }), timeoutMs: 100 });
    let closed = 0;
    shutdown.register('store', () => {
      closed++;
    });
    const [a, b] = await Promise.all([shutdown.run('SIGTERM'), shutdown.run('SIGINT')]);
    expect(a).toBe(b);
    expect(closed).toBe(1);
  });
});
