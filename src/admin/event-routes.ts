// A school's subscription to delivery events (docs/delivery.md#delivery-events):
// set, read and removed under the school's own path. The signing secret is
// shown once, when it was made here, and never again.
import { z } from 'zod';
import { isEventSecret, newEventSecret } from '../shared/event-signature';
import { checkReceiverUrl } from '../shared/event-receiver-url';
import type { Logger } from '../log';
import type { AdminStore } from '../store';
import { AdminError } from './errors';
import { route, type AdminRoute } from './route-table';
import { ErrorBody } from './schemas';

const TAG = 'Events';
const PATH = '/schools/{baseUrl}/events';

const Params = z.strictObject({
  baseUrl: z.string().min(1).describe('The school base URL, URL-encoded (https%3A%2F%2Fschool.example).'),
});

const SubscriptionBody = z.strictObject({
  url: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .describe("The school's receiver: https:// (http:// only with EVENTS_ALLOW_HTTP=true)."),
  secret: z
    .string()
    .optional()
    .describe('whsec_ and the base64 of a 24-64 byte key; left out, one is made and returned once.'),
});

export const EventSubscription = z.object({
  baseUrl: z.string(),
  url: z.string(),
  state: z.enum(['active', 'failing', 'disabled']),
  failingSince: z.string().nullable().describe('When its deliveries began to fail without a success since.'),
  lastError: z.string().nullable(),
  pending: z.number().int().describe('Events queued or being sent.'),
  failed: z.number().int().describe('Events whose last attempt failed, waiting for their retry.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const SetSubscription = EventSubscription.extend({
  secret: z.string().optional().describe('The secret made for this subscription: shown this once only.'),
});

export interface EventRouteOptions {
  /** Subscriptions may name an http:// URL (EVENTS_ALLOW_HTTP). */
  readonly allowHttp: boolean;
  readonly logger: Logger;
}

export function eventRoutes(store: AdminStore, options: EventRouteOptions): AdminRoute[] {
  const noSchool = (baseUrl: string) => new AdminError(404, 'not_found', `No school ${baseUrl}.`);
  return [
    route({
      method: 'put',
      path: PATH,
      operationId: 'set_event_subscription',
      summary: "Set the school's delivery-event subscription (its receiver and signing secret)",
      description:
        'Replaces any earlier subscription and makes it active again. Without a secret, one is made and returned in this answer only.',
      tag: TAG,
      params: Params,
      body: SubscriptionBody,
      responses: {
        200: { description: 'The subscription as stored', schema: SetSubscription },
        404: { description: 'No such school', schema: ErrorBody },
      },
      async handle({ params, body }) {
        const url = receiverUrl(body.url, options.allowHttp);
        if (body.secret !== undefined && !isEventSecret(body.secret))
          throw new AdminError(
            400,
            'invalid_request',
            'The secret must be whsec_ and the base64 of a 24 to 64 byte key.',
            [{ path: 'body.secret', message: 'not a whsec_ secret of 24 to 64 bytes' }],
          );
        const secret = body.secret ?? newEventSecret();
        const stored = await store.putEventSubscription(params.baseUrl, { url, secret });
        if (stored === null) throw noSchool(params.baseUrl);
        options.logger.info(
          { school: stored.baseUrl, receiver: new URL(url).origin, secretMade: body.secret === undefined },
          'event subscription set',
        );
        return { status: 200, body: body.secret === undefined ? { ...stored, secret } : stored };
      },
    }),
    route({
      method: 'get',
      path: PATH,
      operationId: 'get_event_subscription',
      summary: "The school's delivery-event subscription: its receiver, state and counts, never its secret",
      tag: TAG,
      params: Params,
      responses: {
        200: { description: 'The subscription', schema: EventSubscription },
        404: { description: 'No such school, or it has no subscription', schema: ErrorBody },
      },
      async handle({ params }) {
        const found = await store.getEventSubscription(params.baseUrl);
        if (found === 'no_school') throw noSchool(params.baseUrl);
        if (found === 'none')
          throw new AdminError(404, 'not_found', `The school ${params.baseUrl} has no event subscription.`);
        return { status: 200, body: found };
      },
    }),
    route({
      method: 'delete',
      path: PATH,
      operationId: 'delete_event_subscription',
      summary: "Remove the school's delivery-event subscription and its undelivered events",
      tag: TAG,
      params: Params,
      responses: {
        204: { description: 'Removed' },
        404: { description: 'No such school, or it has no subscription', schema: ErrorBody },
      },
      async handle({ params }) {
        if (!(await store.deleteEventSubscription(params.baseUrl)))
          throw new AdminError(404, 'not_found', `The school ${params.baseUrl} has no event subscription.`);
        options.logger.info({ school: params.baseUrl }, 'event subscription removed');
        return { status: 204 };
      },
    }),
  ];
}

// The shared rule (src/shared/event-receiver-url.ts), as a 400 naming the field.
function receiverUrl(text: string, allowHttp: boolean): string {
  const checked = checkReceiverUrl(text, allowHttp);
  if ('problem' in checked)
    throw new AdminError(400, 'invalid_request', checked.problem, [{ path: 'body.url', message: checked.problem }]);
  return checked.url;
}
