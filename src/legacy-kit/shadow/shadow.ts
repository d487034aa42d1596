// Shadow calls (docs/migration.md#shadow): the service answers each read call
// itself and, once its answer is handed over (the response's 'finish'),
// sends the same request to the legacy service (SHADOW_URL), compares the two
// answers with the comparison `npm run compare` uses, and counts the outcome.
// It never delays or changes the answer: nothing runs before 'finish' but
// taking copies; at most SHADOW_CONCURRENCY calls are in flight, the excess
// is dropped and counted, as is one past SHADOW_MAX_PER_SECOND; each call
// has a timeout. Writes are never sent, nor
// calls we refused or faulted, nor the caller's cookies or X-Forwarded-*.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Logger } from '../../log';
import type { ShadowMetrics } from '../../metrics';
import {
  compareAnswers,
  createSender,
  operationKind,
  replayableHeaders,
  bodyFields,
  type Answer,
  type Comparison,
  type IgnoreRule,
  type OutgoingRequest,
  type RecordedRequest,
  type RequestScope,
} from '../compare';
import { captureAnswer } from '../../observe/answer-capture';
import type { RequestObserver } from '../../observe/request-observer';
import { replayHeaders, sampledCall } from './sampled-call';

export interface ShadowKeep {
  /** SHADOW_KEEP_DIR: where the unexplained pairs are kept, one JSON file each, mode 0600. */
  readonly dir: string;
  readonly maxFiles: number;
  readonly maxBytes: number;
}

export interface ShadowOptions {
  /** SHADOW_URL: the legacy service's base address. */
  readonly url: string;
  /** SHADOW_SAMPLE: the fraction of read calls shadowed. */
  readonly sample: number;
  /** SHADOW_CONCURRENCY: shadow calls in flight at most. */
  readonly concurrency: number;
  /** SHADOW_MAX_PER_SECOND: shadow calls started per second at most. */
  readonly maxPerSecond: number;
  /** SHADOW_TIMEOUT_MS: longest a shadow call may take. */
  readonly timeoutMs: number;
  /** SHADOW_IGNORE: accepted differences (docs/asmx-differences.yaml). */
  readonly rules: readonly IgnoreRule[];
  readonly keep: ShadowKeep | null;
  /** Longest answer compared (ours or the legacy's); a longer one is dropped. */
  readonly maxAnswerBytes: number;
  readonly logger: Logger;
  readonly metrics: ShadowMetrics;
  /** SHADOW_FORWARD_AUTHORIZATION: the caller's Authorization goes with the call; otherwise none does, or `credentials`'. */
  readonly forwardAuthorization?: boolean;
  /** SHADOW_USER and its password: the shadow's own Basic credentials for the legacy. */
  readonly credentials?: { readonly user: string; readonly password: string } | null;
  /** For tests; Math.random otherwise. */
  readonly random?: () => number;
  /** For tests; Date.now otherwise. */
  readonly now?: () => number;
}

export interface Shadow {
  readonly observe: RequestObserver;
  /** Shadow calls in flight now. */
  inFlight(): number;
  /** Waits for the calls in flight (shutdown). */
  close(): Promise<void>;
}

/** Failures in a row that pause the shadow calls; the longest pause. */
const FAILURES_BEFORE_PAUSE = 5;
const MAX_PAUSE_MS = 30_000;

/** An unexplained difference is logged once per operation and binding in this period. */
const LOG_EVERY_MS = 60_000;

export function createShadow(options: ShadowOptions): Shadow {
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const base = options.url.replace(/\/+$/, '');
  const agent = base.startsWith('https:')
    ? new https.Agent({ keepAlive: true, maxSockets: options.concurrency })
    : new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const send = createSender(base, { timeoutMs: options.timeoutMs, maxAnswerBytes: options.maxAnswerBytes, agent });
  const budget = perSecondBudget(options.maxPerSecond, now);
  const logged = new Map<string, number>();
  const keeper = options.keep === null ? null : createKeeper(options.keep, options.logger);
  const running = new Set<Promise<void>>();
  const forwardAuthorization = options.forwardAuthorization ?? false;
  const ownAuthorization =
    options.credentials === undefined || options.credentials === null
      ? null
      : `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`, 'utf8').toString('base64')}`;

  const shadowCall = async (request: OutgoingRequest, ours: Answer, scope: Scope, requestId: string) => {
    let comparison: Comparison;
    let legacy: Answer;
    try {
      legacy = await send(request);
      comparison = compareAnswers(legacy, ours, scope, options.rules);
    } catch {
      options.metrics.compared(scope.operation, scope.binding, 'error');
      failed();
      return;
    }
    failures = 0;
    pauses = 0;
    options.metrics.compared(scope.operation, scope.binding, comparison.outcome);
    if (comparison.outcome !== 'differs') return;
    const key = `${scope.operation}\u0000${scope.binding}`;
    const at = now();
    if ((logged.get(key) ?? -Infinity) + LOG_EVERY_MS <= at) {
      logged.set(key, at);
      // Where, never what: the path names elements, not values; headers by name only.
      const first = comparison.unexplained[0];
      options.logger.warn(
        {
          requestId,
          operation: scope.operation,
          binding: scope.binding,
          kind: comparison.kind,
          difference:
            first.target === 'body' ? first.path : first.target === 'header' ? `header ${first.name}` : 'status',
          differences: comparison.unexplained.length,
        },
        'shadow: the legacy service answers differently',
      );
    }
    await keeper?.keep({
      requestId,
      operation: scope.operation,
      binding: scope.binding,
      request: recorded(request),
      legacy: answerFields(legacy),
      ours: answerFields(ours),
      differences: comparison.unexplained,
      kind: comparison.kind,
    });
  };

  // A legacy that keeps failing is left alone for a while (1 s, doubling up to
  // 30 s, after every FAILURES_BEFORE_PAUSE failures in a row): calls meanwhile
  // count as dropped and cost nothing, instead of a connection attempt each.
  let failures = 0;
  let pauses = 0;
  let pausedUntil = 0;
  const failed = () => {
    failures++;
    if (failures < FAILURES_BEFORE_PAUSE) return;
    failures = 0;
    pausedUntil = now() + Math.min(MAX_PAUSE_MS, 1000 * 2 ** pauses++);
  };

  // Slots are taken when a call arrives, so that a call finding them all busy
  // costs nothing but a count: no copy of its request or its answer.
  let reserved = 0;
  const observe: RequestObserver = (req, res, record, next) => {
    // Only the calls' paths, and only the sampled share.
    const sampled = sampledCall(req, options.sample, random);
    if (sampled === null) return next();
    const { method, url } = sampled;
    if (
      reserved >= options.concurrency ||
      (pausedUntil !== 0 && now() < pausedUntil) ||
      // Last, so that a call the slots or the pause turn away does not spend the budget.
      !budget.take()
    ) {
      res.once('finish', () => {
        const { operation, binding } = record;
        if (operation !== null && binding !== null && operationKind(operation) === 'read')
          options.metrics.compared(operation, binding, 'dropped');
      });
      return next();
    }
    if (pausedUntil !== 0) {
      // The pause is over: try again, and pause longer if it still fails.
      pausedUntil = 0;
    }
    reserved++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      reserved--;
    };
    // The body is sent as it was read, inflated: the legacy must not inflate it again.
    const headers = replayHeaders(req, { keepAuthorization: forwardAuthorization });
    if (ownAuthorization !== null) headers.authorization = ownAuthorization;
    // The same id as this service's log line for the call, the caller's or ours.
    headers['x-request-id'] = record.requestId;
    const answer = captureAnswer(record, options.maxAnswerBytes);
    // A client that leaves before its answer frees the slot too.
    res.once('close', () => {
      if (!res.writableFinished) release();
    });
    res.once('finish', () => {
      const operation = record.operation;
      // Only what we answered: a call we refused (401, 403, 429) or faulted is
      // not the legacy's business, and wrong passwords sent on would count
      // against the school's account there.
      const answered = record.outcome === 'ok' && res.statusCode >= 200 && res.statusCode < 300;
      if (operation === null || record.binding === null || operationKind(operation) === 'write' || !answered) {
        release();
        return;
      }
      const scope: Scope = { operation, binding: record.binding, case: 'shadow' };
      const ours = answer();
      if (ours === null) {
        release();
        options.metrics.compared(operation, record.binding, 'dropped');
        return;
      }
      // The body's bytes as read: it is made text (bodyFields) only for a pair that is kept.
      const request: OutgoingRequest = { method, path: url, headers, body: record.body ?? EMPTY };
      const requestId = record.requestId;
      // Started after this tick: nothing of it runs while the answer is being sent.
      const call = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => shadowCall(request, ours, scope, requestId))
        .catch((err: unknown) => options.logger.error({ err }, 'shadow call failed'))
        .finally(() => {
          running.delete(call);
          release();
        });
      running.add(call);
    });
    next();
  };

  return {
    observe,
    inFlight: () => reserved,
    async close() {
      await Promise.allSettled([...running]);
      agent.destroy();
    },
  };
}

const EMPTY = Buffer.alloc(0);

/**
 * At most `perSecond` shadow calls started in any second, a burst of up to one
 * second's worth allowed: at saturation the shadow's work stays at
 * `perSecond` comparisons a second, whatever the sample and however fast the
 * legacy answers (docs/migration.md#shadow).
 */
export function perSecondBudget(perSecond: number, now: () => number): { take(): boolean } {
  let tokens = perSecond;
  let at = now();
  return {
    take() {
      const time = now();
      if (time > at) {
        tokens = Math.min(perSecond, tokens + ((time - at) * perSecond) / 1000);
        at = time;
      }
      if (tokens < 1) return false;
      tokens--;
      return true;
    },
  };
}

/** A request as a kept pair shows it: without credentials or forwarding headers, its body as text or base64. */
function recorded(request: OutgoingRequest): RecordedRequest {
  return {
    method: request.method,
    path: request.path,
    headers: replayableHeaders(request.headers, { keepCredentials: false }),
    ...bodyFields(request.body),
  };
}

/** A shadowed call's scope: always an operation. */
type Scope = RequestScope & { readonly operation: string };

function answerFields(answer: Answer) {
  return { status: answer.status, headers: answer.headers, ...bodyFields(answer.body) };
}

/** Keeps the pairs in a folder within a number of files and bytes, the oldest removed first. */
function createKeeper(keep: ShadowKeep, logger: Logger) {
  mkdirSync(keep.dir, { recursive: true, mode: 0o700 });
  const files: { name: string; size: number }[] = readdirSync(keep.dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const stat = statSync(path.join(keep.dir, name));
      return { name, size: stat.size, time: stat.mtimeMs };
    })
    .sort((a, b) => a.time - b.time || a.name.localeCompare(b.name))
    .map(({ name, size }) => ({ name, size }));
  let total = files.reduce((sum, file) => sum + file.size, 0);
  let sequence = 0;
  return {
    async keep(pair: unknown) {
      const text = `${JSON.stringify(pair, null, 2)}\n`;
      const size = Buffer.byteLength(text);
      if (size > keep.maxBytes) return;
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(sequence++).padStart(6, '0')}.json`;
      try {
        await writeFile(path.join(keep.dir, name), text, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        logger.warn({ err, dir: keep.dir }, 'shadow: a differing pair could not be kept');
        return;
      }
      files.push({ name, size });
      total += size;
      while (files.length > keep.maxFiles || total > keep.maxBytes) {
        const oldest = files.shift();
        if (oldest === undefined) break;
        total -= oldest.size;
        await unlink(path.join(keep.dir, oldest.name)).catch(() => undefined);
      }
    },
  };
}
