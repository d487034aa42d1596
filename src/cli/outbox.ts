// npm run outbox -- list [--status S] [--limit N] | resend ID | resend-dead | prune [--days N]
// What an operator does with messages that gave up: see them, and put them
// back in the queue once the cause is fixed; and deleting finished ones now
// rather than at the workers' next hourly pass.
import './node-guard';
import {
  parseRetentionDays,
  pruneOutboxOnce,
  uncoveredLimitWindow,
  type PruningStore,
} from '../delivery/outbox-retention';
import { createLogger, maskPhone } from '../log';
import { openStore, type AdminStore, type OutboxStatus } from '../store';
import type { Config } from '../config';
import { answerHelpOrVersion, exitWhenDone } from './args';
import { loadConfigOrExit } from './load-config';

const USAGE = `usage: npm run outbox -- list [--status queued|sending|failed|dead|uncertain|sent] [--limit N]
       npm run outbox -- resend ID
       npm run outbox -- resend-dead
       npm run outbox -- prune [--days N]    (N from 1 to 3650; OUTBOX_RETENTION_DAYS unless given)`;
/** What listing and re-queueing need of the store (its admin role). */
type OutboxCommandStore = Pick<
  AdminStore,
  | 'listPushNotifications'
  | 'listAuthCodeMessages'
  | 'outboxStats'
  | 'requeueOutboxMessage'
  | 'requeueDeadOutboxMessages'
>;

const STATUSES: readonly OutboxStatus[] = ['queued', 'sending', 'failed', 'dead', 'uncertain', 'sent'];

async function main(args: string[]): Promise<number> {
  // Written a line at a time: the line's newline is the writer's.
  if (answerHelpOrVersion(args, USAGE, (text) => console.log(text.replace(/\n$/, '')))) return 0;
  const [command, ...rest] = args;
  if (command !== 'list' && command !== 'resend' && command !== 'resend-dead' && command !== 'prune') return usage();
  const config = loadConfigOrExit();
  const store = await openStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  try {
    if (command === 'list') return await list(store.admin, rest);
    if (command === 'resend') return rest.length === 1 ? await resend(store.admin, rest[0]) : usage();
    if (command === 'prune') return await prune(store.outbox, rest, config);
    return rest.length === 0 ? await resendDead(store.admin) : usage();
  } finally {
    await store.lifecycle.close();
  }
}

async function list(store: OutboxCommandStore, args: string[]): Promise<number> {
  let statuses: OutboxStatus[] = ['dead', 'uncertain', 'failed'];
  let limit = 50;
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === '--status' && STATUSES.includes(value as OutboxStatus)) statuses = [value as OutboxStatus];
    else if (flag === '--limit' && /^[0-9]+$/.test(value ?? '')) limit = Number(value);
    else return usage();
  }
  for (const stats of await store.outboxStats()) {
    const counts = STATUSES.map((status) => `${status} ${stats.counts[status]}`).join(', ');
    console.log(
      `${stats.channel}: ${counts}${stats.oldestPendingAt === null ? '' : `; oldest pending since ${stats.oldestPendingAt}`}`,
    );
  }
  for (const status of statuses) {
    const pushes = await store.listPushNotifications({ status, limit });
    const codes = await store.listAuthCodeMessages({ status, limit });
    if (pushes.length + codes.length === 0) continue;
    console.log(`\n${status}:`);
    for (const row of pushes) {
      console.log(
        `push ${row.id}  ${row.type} to student ${row.studentId} (device ${row.deviceId})  attempts ${row.attempts}  created ${row.createdAt}${detail(row)}`,
      );
    }
    for (const row of codes) {
      console.log(
        `sms  ${row.id}  code to ${maskPhone(row.phone)}  attempts ${row.attempts}  created ${row.createdAt}${detail(row)}`,
      );
    }
  }
  return 0;
}

function detail(row: { status: OutboxStatus; nextAttemptAt: string; lastError: string | null }): string {
  const next = row.status === 'failed' || row.status === 'sending' ? `  next ${row.nextAttemptAt}` : '';
  return `${next}${row.lastError === null ? '' : `\n     ${row.lastError}`}`;
}

async function resend(store: OutboxCommandStore, id: string): Promise<number> {
  let result = await store.requeueOutboxMessage('push', id);
  if (result === 'not_found') result = await store.requeueOutboxMessage('sms', id);
  const words = {
    requeued: `${id} is queued again; a worker will send it shortly.`,
    not_found: `No outbox message ${id}.`,
    not_dead: `${id} is neither dead nor failed: nothing to do.`,
    code_erased: `${id} is a login code whose code has been erased; the caller must ask for a new code.`,
  } as const;
  (result === 'requeued' ? console.log : console.error)(words[result]);
  return result === 'requeued' ? 0 : 1;
}

async function resendDead(store: OutboxCommandStore): Promise<number> {
  const push = await store.requeueDeadOutboxMessages('push');
  const sms = await store.requeueDeadOutboxMessages('sms');
  console.log(
    `Queued again: ${push} push notification(s), ${sms} login code(s). Dead login codes whose code was erased stay dead.`,
  );
  return 0;
}

async function prune(store: PruningStore, args: string[], config: Config): Promise<number> {
  let days = config.delivery.outboxRetentionDays;
  if (args.length > 0) {
    days = args.length === 2 && args[0] === '--days' ? parseRetentionDays(args[1]) : null;
    if (days === null) return usage();
  }
  if (days === null) {
    console.error('OUTBOX_RETENTION_DAYS is off: give --days N to prune anyway.');
    return 2;
  }
  const uncovered = uncoveredLimitWindow(days, config.delivery.authCodeLimits);
  if (uncovered !== null) {
    console.error(
      `--days ${days} is shorter than the longest AuthCode limit window (${uncovered} s), whose codes the limits count.`,
    );
    return 2;
  }
  const deleted = await pruneOutboxOnce(store, days, new Date(), createLogger('warn'));
  console.log(
    `Deleted ${deleted.push} push notification(s) and ${deleted.sms} login code(s) sent or dead more than ${days} day(s) ago.`,
  );
  return 0;
}

function usage(): number {
  console.error(USAGE);
  return 2;
}

exitWhenDone(main(process.argv.slice(2)), 'outbox: ');
