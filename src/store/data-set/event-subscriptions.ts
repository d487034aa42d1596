// A school's event subscription in the data set (docs/delivery.md#delivery-events):
// the school record's `eventsUrl`, never the secret. Left out keeps what is
// stored; null or '' removes the subscription (and its undelivered events);
// a URL sets it, keeping the stored secret of a school that has one and
// making a new one (never shown: a PUT through the admin API or the console
// sets a known one) for a school that has none.
import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database';
import { schoolKey } from '../../domain/school-key';
import { checkReceiverUrl } from '../../shared/event-receiver-url';
import { newEventSecret } from '../../shared/event-signature';
import { deleteSubscription } from '../outbox/events';
import { InvalidDataSetError } from './data-set-values';

/** The import format's field on a school record. */
export const EVENTS_URL_FIELD = 'eventsUrl';

/** A school's subscription as a data set sets it: a URL, or null to remove it. */
export interface SubscriptionChange {
  readonly schoolKey: string;
  readonly url: string | null;
}

/**
 * The subscription change a school record asks for, or null when it leaves
 * the field out; throws InvalidDataSetError (path `<path>.eventsUrl`) for a
 * URL the receivers' rule refuses.
 */
export function subscriptionChangeOf(
  record: Readonly<Record<string, unknown>>,
  path: string,
  allowHttp: boolean,
): SubscriptionChange | null {
  if (!Object.hasOwn(record, EVENTS_URL_FIELD) || record[EVENTS_URL_FIELD] === undefined) return null;
  const value = record[EVENTS_URL_FIELD];
  const key = schoolKey(String(record.baseUrl));
  if (value === null || value === '') return { schoolKey: key, url: null };
  if (typeof value !== 'string') throw new InvalidDataSetError(`${path}.${EVENTS_URL_FIELD}`, 'must be a string.');
  const checked = checkReceiverUrl(value, allowHttp);
  if ('problem' in checked) throw new InvalidDataSetError(`${path}.${EVENTS_URL_FIELD}`, lowerFirst(checked.problem));
  return { schoolKey: key, url: checked.url };
}

// "The url is …" reads as "eventsUrl the url is …" after the path; "is …" reads right.
function lowerFirst(problem: string): string {
  return problem.replace(/^The url /, '');
}

/** Writes the changes, after their schools; call inside the data set's transaction. */
export async function writeSubscriptionChanges(
  db: Kysely<StoreDatabase>,
  changes: readonly SubscriptionChange[],
  now: string,
): Promise<void> {
  for (const change of changes) {
    if (change.url === null) {
      await deleteSubscription(db, change.schoolKey);
      continue;
    }
    const stored = await db
      .selectFrom('event_subscriptions')
      .select('url')
      .where('school_key', '=', change.schoolKey)
      .executeTakeFirst();
    if (stored === undefined) {
      await db
        .insertInto('event_subscriptions')
        .values({
          school_key: change.schoolKey,
          url: change.url,
          secret: newEventSecret(),
          state: 'active',
          failing_since: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } else if (stored.url !== change.url) {
      // A new receiver starts afresh, as a PUT does; the same URL again leaves its state alone.
      await db
        .updateTable('event_subscriptions')
        .set({ url: change.url, state: 'active', failing_since: null, last_error: null, updated_at: now })
        .where('school_key', '=', change.schoolKey)
        .execute();
    }
  }
}

/** Every subscription's URL by school key (the export). */
export async function subscriptionUrls(db: Kysely<StoreDatabase>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('event_subscriptions').select(['school_key', 'url']).execute();
  return new Map(rows.map((row) => [row.school_key, row.url]));
}
