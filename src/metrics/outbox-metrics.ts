// Outbox depth and age, read from the store when Prometheus scrapes: the
// outbox is shared by every process on the store, so the numbers are the
// store's, not this process's.
import { Counter, Gauge, type Registry } from 'prom-client';
import { OUTBOX_CHANNELS } from '../shared/outbox-channel';
import type { OutboxChannel, OutboxChannelStats, OutboxStatus } from '../store';

export interface OutboxStatsSource {
  outboxStats(): Promise<OutboxChannelStats[]>;
  /** When the channel's longest-waiting due message came due (ISO time), or null. */
  oldestDueAt(channel: OutboxChannel): Promise<string | null>;
}

const STATUSES: readonly OutboxStatus[] = ['queued', 'sending', 'sent', 'failed', 'dead', 'uncertain'];
const PENDING: readonly OutboxStatus[] = ['queued', 'sending', 'failed'];
// Gauges are collected one after another in a scrape; they share one read.
const FRESH_MS = 1000;

export function registerOutboxMetrics(
  registry: Registry,
  source: OutboxStatsSource,
  now: () => number = Date.now,
): void {
  let last: { at: number; stats: Promise<OutboxChannelStats[]> } | null = null;
  // Registered after the gauges (below), so a scrape shows the failure it met itself.
  let errors: Counter | null = null;
  const read = async (): Promise<OutboxChannelStats[] | null> => {
    if (last === null || now() - last.at > FRESH_MS) last = { at: now(), stats: source.outboxStats() };
    try {
      return await last.stats;
    } catch {
      last = null;
      errors?.inc();
      return null;
    }
  };

  // One gauge per figure, each set from the shared read when scraped.
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    set: (g: Gauge, stats: OutboxChannelStats) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        for (const stats of (await read()) ?? []) set(this, stats);
      },
    });

  gauge(
    'notify_outbox_messages',
    'Outbox messages by channel (push, sms) and status.',
    ['channel', 'status'],
    (g, stats) => {
      for (const status of STATUSES) g.labels(stats.channel, status).set(stats.counts[status]);
    },
  );
  gauge(
    'notify_outbox_pending',
    'Outbox depth: messages queued, being sent or waiting for a retry, by channel.',
    ['channel'],
    (g, stats) => {
      g.labels(stats.channel).set(PENDING.reduce((sum, status) => sum + stats.counts[status], 0));
    },
  );
  gauge(
    'notify_outbox_oldest_pending_age_seconds',
    'Age of the oldest message not yet sent or given up, by channel; 0 when none is pending.',
    ['channel'],
    (g, stats) => {
      const oldest = stats.oldestPendingAt === null ? null : Date.parse(stats.oldestPendingAt);
      g.labels(stats.channel).set(oldest === null ? 0 : Math.max(0, (now() - oldest) / 1000));
    },
  );
  // Pending counts a failed message waiting for its retry; due does not: a
  // due message is one a worker should be sending now (its time has come, or
  // its lease ran out), so its age is how far delivery is behind.
  new Gauge({
    name: 'notify_outbox_oldest_due_age_seconds',
    help: 'How long the longest-waiting due message (queued, or its retry or lease time come) has been due, by channel; 0 when none is due.',
    labelNames: ['channel'],
    registers: [registry],
    async collect() {
      // A store that cannot answer fails the statistics' read of the same
      // scrape too, which is what notify_outbox_stats_errors_total counts;
      // the gauge keeps its last value, as the others do.
      const dues = await Promise.all(
        OUTBOX_CHANNELS.map((channel) => source.oldestDueAt(channel).catch(() => undefined)),
      );
      OUTBOX_CHANNELS.forEach((channel, i) => {
        const due = dues[i];
        if (due !== undefined)
          this.labels(channel).set(due === null ? 0 : Math.max(0, (now() - Date.parse(due)) / 1000));
      });
    },
  });
  errors = new Counter({
    name: 'notify_outbox_stats_errors_total',
    help: 'Scrapes in which the outbox statistics could not be read from the store (the gauges then keep their last values).',
    registers: [registry],
  });
}
