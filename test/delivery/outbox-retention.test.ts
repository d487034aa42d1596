// The workers' outbox pruning: the cut-off it asks the store for, its
// schedule, and that a failed pass neither stops the schedule nor escapes.
import { capturingLogger } from '../support/logs';
import { pruneOutboxOnce, startOutboxPruning, type PruningStore } from '../../src/delivery/outbox-retention';

const NOW = new Date('2030-03-31T12:00:00.000Z');

function recordingStore(fail: () => boolean = () => false): PruningStore & { cutoffs: string[] } {
  const cutoffs: string[] = [];
  return {
    cutoffs,
    async pruneOutbox(before) {
      cutoffs.push(before);
      if (fail()) throw new Error('database is locked');
      return { push: 2, sms: 1 };
    },
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('outbox retention', () => {
  it('deletes what finished the given number of days before now, and logs what it deleted', async () => {
    const store = recordingStore();
    const { lines, logger } = capturingLogger('info');
    expect(await pruneOutboxOnce(store, 30, NOW, logger)).toEqual({ push: 2, sms: 1 });
    expect(store.cutoffs).toEqual(['2030-03-01T12:00:00.000Z']);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'outbox pruned',
        deleted: { push: 2, sms: 1 },
        before: '2030-03-01T12:00:00.000Z',
      }),
    ]);
  });

  it('runs a first pass after the delay, then one per interval, until stopped', async () => {
    const store = recordingStore();
    const { logger } = capturingLogger('info');
    const stop = startOutboxPruning(store, 1, logger, () => NOW, { firstDelayMs: 20, intervalMs: 30 });
    expect(store.cutoffs).toEqual([]);
    await until(() => store.cutoffs.length >= 3);
    await stop();
    const passes = store.cutoffs.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.cutoffs.length).toBe(passes);
    expect(new Set(store.cutoffs)).toEqual(new Set(['2030-03-30T12:00:00.000Z']));
  });

  it('logs a failed pass and tries again at the next one', async () => {
    let failures = 1;
    const store = recordingStore(() => failures-- > 0);
    const { lines, logger } = capturingLogger('info');
    const stop = startOutboxPruning(store, 30, logger, () => NOW, { firstDelayMs: 1, intervalMs: 10 });
    try {
      await until(() => lines.some((line) => line.msg === 'outbox pruned'));
      expect(lines[0]).toMatchObject({
        level: 40,
        msg: 'outbox pruning failed; the next pass tries again',
        err: expect.objectContaining({ message: 'database is locked' }),
      });
    } finally {
      await stop();
    }
  });

  it('stopping ends a pass under way and waits for it, so that the store can close after', async () => {
    let release: () => void = () => undefined;
    let seen: AbortSignal | undefined;
    let finished = false;
    const store: PruningStore = {
      async pruneOutbox(_before, signal) {
        seen = signal;
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
        return { push: 0, sms: 0 };
      },
    };
    const stop = startOutboxPruning(store, 30, capturingLogger('info').logger, () => NOW, {
      firstDelayMs: 1,
      intervalMs: 1000,
    });
    await until(() => seen !== undefined);
    expect(seen?.aborted).toBe(false);
    const stopped = stop();
    expect(seen?.aborted).toBe(true);
    let resolved = false;
    void stopped.then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resolved).toBe(false);
    release();
    await stopped;
    expect(finished).toBe(true);
  });
});
