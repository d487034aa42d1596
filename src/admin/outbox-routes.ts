// The outbox as operators see it: list with filters, statistics, and
// re-sending what gave up. Auth codes never leave with their code, and phone
// numbers only masked.
import { z } from 'zod';
import { maskPhone } from '../log';
import type { AuthCodeMessageRow, OutboxChannel, OutboxMessage, PushNotificationRow, AdminStore } from '../store';
import { AdminError } from './errors';
import { pageBody } from './paging';
import { route, type AdminRoute } from './route-table';
import {
  ErrorBody,
  OutboxChannelParam,
  OutboxListQuery,
  OutboxStats,
  Paging,
  PushMessage,
  Requeued,
  RequeuedCount,
  SmsMessage,
  pageOf,
} from './schemas';

const TAG = 'Outbox';

function smsView(row: AuthCodeMessageRow): z.output<typeof SmsMessage> {
  const { code, phone, callerAddress: _callerAddress, lockedUntil: _lockedUntil, ...rest } = row;
  return { ...rest, phone: maskPhone(phone), hasCode: code !== null };
}

function pushView(row: PushNotificationRow): z.output<typeof PushMessage> {
  const { lockedUntil: _lockedUntil, ...rest } = row;
  return rest;
}

function pushOrSmsView(message: OutboxMessage): z.output<typeof PushMessage> | z.output<typeof SmsMessage> {
  return message.channel === 'sms' ? smsView(message.item) : pushView(message.item);
}

export function outboxRoutes(store: AdminStore): AdminRoute[] {
  const channelParams = z.strictObject({ channel: OutboxChannelParam });
  return [
    route({
      method: 'get',
      path: '/outbox/stats',
      operationId: 'outbox_stats',
      summary: 'Messages by status and the oldest pending message, per channel',
      tag: TAG,
      responses: { 200: { description: 'Statistics', schema: OutboxStats } },
      async handle() {
        return { status: 200, body: { channels: await store.outboxStats() } };
      },
    }),
    route({
      method: 'get',
      path: '/outbox/{channel}',
      operationId: 'list_outbox',
      summary: 'List a channel of the outbox, newest first',
      description:
        'A page holds at most limit messages and stops once its messages reach about 1 MiB of JSON: continue from nextOffset.',
      tag: TAG,
      params: channelParams,
      query: Paging.extend(OutboxListQuery.shape),
      responses: {
        200: {
          description: 'A page: PushMessage items for push, SmsMessage items for sms',
          schema: pageOf(z.union([PushMessage, SmsMessage])),
        },
      },
      async handle({ params, query }) {
        const { limit, offset, status, studentId, deviceId } = query;
        if (params.channel === 'sms' && (studentId !== undefined || deviceId !== undefined)) {
          throw new AdminError(400, 'invalid_request', 'studentId and deviceId filter push messages only.');
        }
        const page = await store.listOutbox(params.channel, { status, studentId, deviceId, limit, offset });
        const items = page.channel === 'sms' ? page.items.map(smsView) : page.items.map(pushView);
        return {
          status: 200,
          body: pageBody<z.output<typeof PushMessage> | z.output<typeof SmsMessage>>(items, page.total, limit, offset),
        };
      },
    }),
    route({
      method: 'get',
      path: '/outbox/{channel}/{id}',
      operationId: 'get_outbox_message',
      summary: 'One message of the outbox: its status, attempts, last error and provider id',
      tag: TAG,
      params: channelParams.extend({ id: z.string().min(1) }),
      responses: {
        200: {
          description: 'A PushMessage for push, an SmsMessage for sms',
          schema: z.union([PushMessage, SmsMessage]),
        },
        404: { description: 'No such message', schema: ErrorBody },
      },
      async handle({ params }) {
        const found = await store.getOutboxMessage(params.channel, params.id);
        if (found === null) throw new AdminError(404, 'not_found', `No ${params.channel} message ${params.id}.`);
        return { status: 200, body: pushOrSmsView(found) };
      },
    }),
    route({
      method: 'post',
      path: '/outbox/{channel}/resend-dead',
      operationId: 'resend_dead',
      summary: 'Queue every dead message of the channel again',
      description: 'Auth codes whose code was already erased cannot be sent again and stay dead.',
      tag: TAG,
      params: channelParams,
      responses: { 200: { description: 'How many were queued again', schema: RequeuedCount } },
      async handle({ params }) {
        return {
          status: 200,
          body: { channel: params.channel, requeued: await store.requeueDeadOutboxMessages(params.channel) },
        };
      },
    }),
    route({
      method: 'post',
      path: '/outbox/{channel}/{id}/resend',
      operationId: 'resend_message',
      summary: 'Queue one dead (or failed) message again, due now, attempts reset',
      tag: TAG,
      params: channelParams.extend({ id: z.string().min(1) }),
      responses: {
        200: { description: 'Queued again', schema: Requeued },
        404: { description: 'No such message', schema: ErrorBody },
        409: { description: 'Not dead or failed, or an auth code whose code was erased', schema: ErrorBody },
      },
      async handle({ params }) {
        const channel: OutboxChannel = params.channel;
        const result = await store.requeueOutboxMessage(channel, params.id);
        if (result === 'not_found') throw new AdminError(404, 'not_found', `No ${channel} message ${params.id}.`);
        if (result === 'not_dead')
          throw new AdminError(
            409,
            'not_dead',
            `The ${channel} message ${params.id} is neither dead nor failed; it is still being delivered or already sent.`,
          );
        if (result === 'code_erased') {
          throw new AdminError(
            409,
            'code_erased',
            `The auth code of message ${params.id} was erased; the user must ask for a new code.`,
          );
        }
        return { status: 200, body: { channel, id: params.id, status: 'queued' } };
      },
    }),
  ];
}
