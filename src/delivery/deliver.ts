// One claimed message, from checks through the provider to the outbox: the
// part of the worker that decides, kept apart from the loop that schedules.
import type { Logger } from '../log';
import type { ClaimedAuthCodeMessage, ClaimedMessage, ClaimedPushNotification, DeliveryCompletion } from '../store';
import type { DeliverySpan, Tracer } from '../trace';
import type { CompletionWriter } from './completion-writer';
import type { DeliveryLimits, SendSignal } from './concurrency';
import type { DeliveryStore } from './delivery-store';
import type { DeliveryChannel, DeliveryObserver } from './observer';
import { failure, type PushProvider, type SendResult, type SmsProvider } from './provider';
import { completionFor, type RetryPolicy } from './retry-policy';
import { hidePhoneIn } from './sms/hide-phone';
import { smsText } from './sms/sms-text';

export interface DeliveryContext {
  readonly store: DeliveryStore;
  readonly completions: CompletionWriter;
  /** Told how each provider answered, so that the sends in flight follow it. */
  readonly limits: DeliveryLimits;
  readonly push: PushProvider;
  readonly sms: SmsProvider;
  readonly observer: DeliveryObserver;
  readonly logger: Logger;
  readonly policy: RetryPolicy;
  /** An auth code not sent by this age is dead: a late code is no use to anyone. */
  readonly authCodeMaxAgeMs: number;
  /** The SMS text, `{code}` in place of the code. */
  readonly smsTemplate: string;
  readonly now: () => Date;
  readonly random: () => number;
  /** A span for each attempt, linked to the call that queued the message (docs/operating.md#traces); null: off. */
  readonly tracer?: Tracer | null;
}

/** `project`: the FCM project of the message's school, for a provider that sends `byProject`. */
export function deliverPush(
  context: DeliveryContext,
  message: ClaimedPushNotification,
  project?: string,
): Promise<void> {
  const tracer = context.tracer ?? null;
  if (tracer === null) return attemptPush(context, message, null, project);
  return tracer.delivery(traced('push', context.push.name, message), (span) =>
    attemptPush(context, message, span, project),
  );
}

export function deliverSms(context: DeliveryContext, message: ClaimedAuthCodeMessage): Promise<void> {
  const tracer = context.tracer ?? null;
  if (tracer === null) return attemptSms(context, message, null);
  return tracer.delivery(traced('sms', context.sms.name, message), (span) => attemptSms(context, message, span));
}

function traced(channel: DeliveryChannel, provider: string, message: ClaimedMessage) {
  return { channel, provider, messageId: message.id, attempt: message.attempts, traceparent: message.traceparent };
}

async function attemptPush(
  context: DeliveryContext,
  message: ClaimedPushNotification,
  span: DeliverySpan | null,
  project: string | undefined,
): Promise<void> {
  const expiresAt = message.options?.expiresAt ?? null;
  const refusal =
    exhausted(context, message) ??
    (message.pushToken === null ? deadBefore('no_token', 'The device has no push token.') : null) ??
    // Its lifetime (docs/delivery.md#message-options) ran out while it waited or was retried: news too late to matter.
    (expiresAt !== null && context.now().getTime() >= Date.parse(expiresAt)
      ? deadBefore('expired', `The message expired at ${expiresAt} before it could be sent.`)
      : null);
  if (refusal !== null)
    return finish(
      context,
      'push',
      context.push.name,
      message,
      refusal.completion,
      refusal.code,
      0,
      span,
      false,
      project,
    );

  const token = message.pushToken as string;
  const started = performance.now();
  const raw = await guarded(() =>
    context.push.send({
      id: message.id,
      token,
      platform: message.platform,
      title: message.title,
      body: message.body,
      data: message.data,
      options: message.options,
      ...(project === undefined ? {} : { project }),
    }),
  );
  // A provider may quote the token in its error; the error goes to the store,
  // the log and the school's delivery events, none of which may hold it.
  const result = raw.ok ? raw : { ...raw, message: raw.message.replaceAll(token, '[token]') };
  const durationMs = performance.now() - started;
  context.limits.push.observe(durationMs, signalOf(result));
  if (!result.ok && result.tokenInvalid) {
    const removed = await context.store.removeDeviceToken(message.deviceId, token).catch((error: unknown) => {
      context.logger.error({ err: error, deviceId: message.deviceId }, 'could not remove a dead push token');
      return false;
    });
    if (removed)
      context.logger.info(
        { deviceId: message.deviceId, reason: result.code },
        'push token removed: the provider says it is no longer registered',
      );
  }
  const completion = completionNow(context, result, message, null, context.push.retriesUncertain);
  await finish(
    context,
    'push',
    context.push.name,
    message,
    completion,
    result.ok ? null : result.code,
    durationMs,
    span,
    !result.ok && result.tokenInvalid === true,
    project,
  );
}

async function attemptSms(
  context: DeliveryContext,
  message: ClaimedAuthCodeMessage,
  span: DeliverySpan | null,
): Promise<void> {
  const deadline = new Date(new Date(message.createdAt).getTime() + context.authCodeMaxAgeMs);
  const refusal =
    exhausted(context, message) ??
    (message.code === null ? deadBefore('no_code', 'The code was erased before it could be sent.') : null) ??
    (context.now() >= deadline
      ? deadBefore('expired', `The code was not sent within ${context.authCodeMaxAgeMs / 1000} s of the request.`)
      : null);
  if (refusal !== null)
    return finish(context, 'sms', context.sms.name, message, refusal.completion, refusal.code, 0, span);

  const code = message.code as string;
  // A gateway that cannot drop a repeat gets a message at most once: the
  // attempt is recorded as under way (committed) before the call, so that if
  // this worker dies now the message becomes uncertain, not sent again
  // (docs/delivery.md#sent-once).
  if (!context.sms.retriesUncertain && !(await sendMayStart(context, message))) return;
  const started = performance.now();
  const raw = await guarded(() =>
    context.sms.send({ id: message.id, phone: message.phone, text: smsText(context.smsTemplate, code) }),
  );
  const durationMs = performance.now() - started;
  context.limits.sms.observe(durationMs, signalOf(raw));
  // A gateway may echo the request back in its error; neither the code nor the
  // number may reach the store, the log or the admin API that way.
  const result = raw.ok ? raw : { ...raw, message: hidePhoneIn(raw.message.replaceAll(code, '[code]'), message.phone) };
  const completion = completionNow(context, result, message, deadline, context.sms.retriesUncertain);
  await finish(context, 'sms', context.sms.name, message, completion, result.ok ? null : result.code, durationMs, span);
}

async function sendMayStart(context: DeliveryContext, message: ClaimedAuthCodeMessage): Promise<boolean> {
  try {
    if (await context.store.markSmsSendStarted(message.id, message.claimToken)) return true;
    context.logger.warn(
      { channel: 'sms', id: message.id },
      'login code not sent: the lease ran out and the message was claimed again',
    );
  } catch (error) {
    // Nothing was sent: the message is tried again when its lease ends.
    context.logger.error(
      { err: error, channel: 'sms', id: message.id },
      'could not record that a login code is being sent; it is tried again after the lease',
    );
  }
  return false;
}

/**
 * A login code the claim found interrupted (its worker stopped after handing
 * it to the gateway) and recorded uncertain: counted and logged as any other
 * uncertain send.
 */
export function interruptedSend(context: DeliveryContext, id: string): void {
  context.observer.attempted({
    channel: 'sms',
    provider: context.sms.name,
    outcome: 'uncertain',
    errorCode: 'worker_stopped',
    durationMs: 0,
  });
  context.logger.warn(
    { channel: 'sms', id },
    'a login code whose worker stopped mid-send may have been accepted; it is not sent again',
  );
}

// A provider that asks us to slow down (429, 503), or does not answer, is overloaded; any other answer is an answer.
function signalOf(result: SendResult): SendSignal {
  return !result.ok && (result.retryable || result.uncertain) ? 'overloaded' : 'answered';
}

// A message whose earlier attempts were started and never finished (its
// worker died mid-send, more than once) is given up rather than tried forever.
function exhausted(
  context: DeliveryContext,
  message: ClaimedMessage,
): { completion: DeliveryCompletion; code: string } | null {
  if (message.attempts <= context.policy.maxAttempts) return null;
  return deadBefore(
    'attempts_exhausted',
    `gave up after ${message.attempts - 1} attempts, the last of which never finished (its worker stopped mid-send)`,
  );
}

function deadBefore(code: string, message: string): { completion: DeliveryCompletion; code: string } {
  return { completion: { status: 'dead', error: `${code}: ${message}` }, code };
}

// A provider is written to return failures, not throw them; if one throws
// anyway, the message is retried like after any other unknown failure.
async function guarded(send: () => Promise<SendResult>): Promise<SendResult> {
  try {
    return await send();
  } catch (error) {
    return failure(
      'provider_error',
      `The provider failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
      { retryable: true },
    );
  }
}

/** What an attempt's result makes of the message now, under the worker's retry policy (src/delivery/retry-policy.ts). */
function completionNow(
  context: DeliveryContext,
  result: SendResult,
  message: ClaimedMessage,
  deadline: Date | null,
  retriesUncertain: boolean,
): DeliveryCompletion {
  return completionFor(
    result,
    message.attempts,
    context.policy,
    context.now(),
    context.random,
    deadline,
    retriesUncertain,
  );
}

async function finish(
  context: DeliveryContext,
  channel: DeliveryChannel,
  provider: string,
  message: ClaimedMessage,
  completion: DeliveryCompletion,
  errorCode: string | null,
  durationMs: number,
  span: DeliverySpan | null,
  tokenGone = false,
  project?: string,
): Promise<void> {
  const outcome = completion.status === 'failed' ? 'retry' : completion.status;
  context.observer.attempted({
    channel,
    provider,
    outcome,
    errorCode,
    durationMs,
    ...(project === undefined ? {} : { project }),
  });
  span?.finished(outcome, errorCode);
  let current: boolean;
  try {
    current = await context.completions.write({
      channel,
      id: message.id,
      claimToken: message.claimToken,
      completion,
      code: errorCode,
      tokenGone,
    });
  } catch (error) {
    // The message stays claimed; when the lease ends it is tried again.
    context.logger.error(
      { err: error, channel, id: message.id, outcome: completion.status },
      'could not record a delivery attempt; it will be retried after the lease',
    );
    return;
  }
  if (!current) {
    context.logger.warn(
      { channel, id: message.id, outcome: completion.status },
      'delivery result dropped: the lease ran out and the message was claimed again',
    );
  } else if (completion.status === 'uncertain') {
    context.logger.warn(
      { channel, id: message.id, error: completion.error },
      'the provider may have accepted this message; it is not sent again',
    );
  } else if (completion.status === 'dead') {
    const hint = channel === 'push' ? ' (npm run outbox -- resend ID re-queues it)' : '';
    context.logger.warn({ channel, id: message.id, error: completion.error }, `message is dead${hint}`);
  } else if (completion.status === 'failed') {
    context.logger.debug(
      { channel, id: message.id, retryAt: completion.retryAt, error: completion.error },
      'delivery failed; retrying later',
    );
  }
}
