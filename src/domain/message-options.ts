// How a push notification of each type travels on each platform: Android
// priority, collapse key and channel; APNs priority, sound, badge and collapse
// id; web push urgency; and how long it is worth delivering (one lifetime for
// every platform: FCM's android.ttl, APNs' apns-expiration and web push's
// TTL). Three layers, each overriding the one before field by field, null
// taking a field away: the built-in defaults per type below, the templates
// file's `options` for the type (NOTIFICATION_TEMPLATES), and the school's
// own `pushOptions` for the type (docs/delivery.md#message-options,
// docs/design.md#message-options). They are resolved when the message is
// queued and kept with it, its lifetime as an instant.
import { z } from 'zod';
import { minutesOf, nextLocalTime } from './school-time';

/** FCM keeps a message at most four weeks. */
export const MAX_TTL_SECONDS = 28 * 86_400;
/** APNs refuses an apns-collapse-id over 64 bytes; Android's collapse key and channel id get the same bound. */
const MAX_KEY_BYTES = 64;
const MAX_SOUND_LENGTH = 64;
const MAX_BADGE = 99_999;
/** Types a school may override; more is a mistake. */
export const MAX_OPTION_TYPES = 32;
export const MAX_TYPE_LENGTH = 64;

const key = (what: string) =>
  z
    .string({ error: `${what} must be a string.` })
    .min(1, `${what} must not be empty.`)
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_KEY_BYTES, `${what} must be at most 64 bytes.`)
    .refine((value) => /^[\x21-\x7e]+$/.test(value), `${what} must be printable ASCII without spaces.`);

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const MessageOptionsSchema = z
  .strictObject({
    ttlSeconds: optional(
      z
        .number({ error: 'ttlSeconds must be a whole number of seconds.' })
        .int('ttlSeconds must be a whole number of seconds.')
        .min(0, 'ttlSeconds must be at least 0.')
        .max(MAX_TTL_SECONDS, `ttlSeconds must be at most ${MAX_TTL_SECONDS} (four weeks).`),
    ).describe('How long the message is worth delivering, from when it is due; null: as long as FCM keeps it.'),
    expiresAt: optional(
      z
        .string({ error: 'expiresAt must be a string.' })
        .refine((value) => minutesOf(value, true) !== null, 'expiresAt must be HH:MM (or 24:00, the end of the day).'),
    ).describe(
      "A local time in the school's zone after which the message is not worth delivering (24:00: the end of the school's day).",
    ),
    android: optional(
      z.strictObject({
        priority: optional(z.enum(['high', 'normal'], { error: 'android.priority must be high or normal.' })),
        collapseKey: optional(key('android.collapseKey')),
        channelId: optional(key('android.channelId')),
      }),
    ),
    apns: optional(
      z.strictObject({
        priority: optional(z.union([z.literal(10), z.literal(5)], { error: 'apns.priority must be 10 or 5.' })),
        sound: optional(
          z
            .string({ error: 'apns.sound must be a string.' })
            .min(1, 'apns.sound must not be empty.')
            .max(MAX_SOUND_LENGTH, `apns.sound must be at most ${MAX_SOUND_LENGTH} characters.`),
        ),
        badge: optional(
          z
            .number({ error: 'apns.badge must be a whole number.' })
            .int('apns.badge must be a whole number.')
            .min(0, 'apns.badge must be at least 0.')
            .max(MAX_BADGE, `apns.badge must be at most ${MAX_BADGE}.`),
        ),
        collapseId: optional(key('apns.collapseId')),
      }),
    ),
    webpush: optional(
      z.strictObject({
        urgency: optional(
          z.enum(['very-low', 'low', 'normal', 'high'], {
            error: 'webpush.urgency must be very-low, low, normal or high.',
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'MessageOptions' });

export type MessageOptions = z.output<typeof MessageOptionsSchema>;

/** Options per notification type (`*`: any type without its own), as a school gives them. */
export const OptionsByTypeSchema = z
  .record(
    z
      .string()
      .trim()
      .toLowerCase()
      .min(1, 'a type must not be empty.')
      .max(MAX_TYPE_LENGTH, `a type must be at most ${MAX_TYPE_LENGTH} characters.`),
    MessageOptionsSchema,
  )
  .refine((value) => Object.keys(value).length <= MAX_OPTION_TYPES, `at most ${MAX_OPTION_TYPES} types.`);

export type OptionsByType = Readonly<Record<string, MessageOptions>>;

/** The options a queued message keeps: resolved, its lifetime an instant. */
export interface ResolvedOptions {
  /** ISO time after which the message is not sent; null: no limit of ours. */
  readonly expiresAt: string | null;
  readonly android: {
    readonly priority?: 'high' | 'normal';
    readonly collapseKey?: string;
    readonly channelId?: string;
  };
  readonly apns: {
    readonly priority?: 10 | 5;
    readonly sound?: string;
    readonly badge?: number;
    readonly collapseId?: string;
  };
  readonly webpush: { readonly urgency?: 'very-low' | 'low' | 'normal' | 'high' };
}

const WEEK = 7 * 86_400;

// What each type means for a parent: an absence matters today and now; a
// note or a mark can wait for the phone's next wake-up and matter for a
// week; an exam notice for a few days. Sound only where the news is urgent;
// no channel or collapse key by default, as those are the app's own (a
// channel the app never created shows under its fallback channel).
export const DEFAULT_OPTIONS: OptionsByType = {
  absence: {
    expiresAt: '24:00',
    android: { priority: 'high' },
    apns: { priority: 10, sound: 'default' },
    webpush: { urgency: 'high' },
  },
  note: { ttlSeconds: WEEK, android: { priority: 'normal' }, apns: { priority: 5 }, webpush: { urgency: 'normal' } },
  audit: { ttlSeconds: WEEK, android: { priority: 'normal' }, apns: { priority: 5 }, webpush: { urgency: 'normal' } },
  mark: { ttlSeconds: WEEK, android: { priority: 'normal' }, apns: { priority: 5 }, webpush: { urgency: 'normal' } },
  exam: {
    ttlSeconds: 3 * 86_400,
    android: { priority: 'normal' },
    apns: { priority: 5 },
    webpush: { urgency: 'normal' },
  },
  general: {
    ttlSeconds: WEEK,
    android: { priority: 'normal' },
    apns: { priority: 5 },
    webpush: { urgency: 'normal' },
  },
  '*': { ttlSeconds: WEEK, android: { priority: 'normal' }, apns: { priority: 5 }, webpush: { urgency: 'normal' } },
};

const FALLBACK_KEY = '*';
type Layer = MessageOptions | undefined;

/** The options of `key` in one layer: its own, else its `*`. */
function layerFor(byType: OptionsByType | undefined, key: string): Layer {
  if (byType === undefined) return undefined;
  return Object.hasOwn(byType, key)
    ? byType[key]
    : Object.hasOwn(byType, FALLBACK_KEY)
      ? byType[FALLBACK_KEY]
      : undefined;
}

// The template a message is written from (renderNotification's choice) gives its options.
function templateLayer(templates: OptionSources['templates'], key: string): Layer {
  if (templates === undefined) return undefined;
  if (Object.hasOwn(templates, key)) return templates[key].options;
  return Object.hasOwn(templates, FALLBACK_KEY) ? templates[FALLBACK_KEY].options : undefined;
}

type Flat = Record<string, unknown>;

// Later layers win field by field; null takes the field away; undefined leaves it.
function merge(layers: readonly Layer[]): MessageOptions {
  const top: Flat = {};
  const platforms: Record<'android' | 'apns' | 'webpush', Flat> = { android: {}, apns: {}, webpush: {} };
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [name, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (name === 'android' || name === 'apns' || name === 'webpush') {
        if (value === null) platforms[name] = {};
        else for (const [field, v] of Object.entries(value as Flat)) if (v !== undefined) platforms[name][field] = v;
      } else top[name] = value;
    }
  }
  return { ...top, ...platforms };
}

const present = <T extends Flat>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as T;

export interface OptionSources {
  /** The templates (NOTIFICATION_TEMPLATES over the built-in ones): a type's template's options, else `*`'s when the type has no template. */
  readonly templates?: Readonly<Record<string, { readonly options?: MessageOptions }>>;
  /** The school's `pushOptions`. */
  readonly school?: OptionsByType | null;
}

/** A type's options merged from its layers, before its lifetime is counted from a due time. */
interface MergedOptions {
  readonly ttlSeconds: number | null;
  /** Minutes after local midnight of `expiresAt`; null: none. */
  readonly expiresAtMinutes: number | null;
  readonly android: ResolvedOptions['android'];
  readonly apns: ResolvedOptions['apns'];
  readonly webpush: ResolvedOptions['webpush'];
}

// The merge of a type's layers depends only on the type and the two sources,
// which are the same objects call after call (the templates are read at
// start; a school's options are parsed once per text by the store's student
// read), so it is kept per source pair and type instead of being redone for
// every message (docs/benchmark.md#ingestion). Types are callers' strings:
// each pair keeps at most MERGED_PER_SOURCES of them, and starts over when full.
const MERGED_PER_SOURCES = 256;
const NO_SOURCE = {};
const mergedCache = new WeakMap<object, WeakMap<object, Map<string, MergedOptions>>>();

function mergedOptions(key: string, sources: OptionSources): MergedOptions {
  const templates = sources.templates ?? NO_SOURCE;
  const school = sources.school ?? NO_SOURCE;
  let bySchool = mergedCache.get(templates);
  if (bySchool === undefined)
    mergedCache.set(templates, (bySchool = new WeakMap<object, Map<string, MergedOptions>>()));
  let byType = bySchool.get(school);
  if (byType === undefined) bySchool.set(school, (byType = new Map<string, MergedOptions>()));
  const known = byType.get(key);
  if (known !== undefined) return known;
  const merged = merge([
    layerFor(DEFAULT_OPTIONS, key),
    templateLayer(sources.templates, key),
    layerFor(sources.school ?? undefined, key),
  ]);
  // Frozen: every message of the type shares these objects.
  const result: MergedOptions = Object.freeze({
    ttlSeconds: typeof merged.ttlSeconds === 'number' ? merged.ttlSeconds : null,
    expiresAtMinutes: typeof merged.expiresAt === 'string' ? (minutesOf(merged.expiresAt, true) as number) : null,
    android: Object.freeze(present({ ...merged.android })),
    apns: Object.freeze(present({ ...merged.apns })),
    webpush: Object.freeze(present({ ...merged.webpush })),
  } as MergedOptions);
  if (byType.size >= MERGED_PER_SOURCES) byType.clear();
  byType.set(key, result);
  return result;
}

/**
 * The options of a message of `type` due at `dueAt` for a school in
 * `timeZone`: the lifetime counts from when the message is due, so that a
 * message held through quiet hours or scheduled for later keeps all of it.
 */
export function resolveOptions(type: string, dueAt: Date, timeZone: string, sources: OptionSources): ResolvedOptions {
  const merged = mergedOptions(type.trim().toLowerCase(), sources);
  let end: number | null = merged.ttlSeconds === null ? null : dueAt.getTime() + merged.ttlSeconds * 1000;
  if (merged.expiresAtMinutes !== null) {
    const local = nextLocalTime(dueAt, timeZone, merged.expiresAtMinutes).getTime();
    end = end === null ? local : Math.min(end, local);
  }
  return {
    expiresAt: end === null ? null : new Date(end).toISOString(),
    android: merged.android,
    apns: merged.apns,
    webpush: merged.webpush,
  };
}

const ResolvedSchema = z.object({
  expiresAt: z
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)))
    .nullable(),
  android: z.object({}).passthrough(),
  apns: z.object({}).passthrough(),
  webpush: z.object({}).passthrough(),
});

/** Options as stored with a message (JSON); null for a message queued before there were any, or a row edited by hand. */
export function parseResolvedOptions(text: string | null): ResolvedOptions | null {
  if (text === null) return null;
  try {
    const parsed = ResolvedSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return null;
    const platforms = MessageOptionsSchema.safeParse({
      android: parsed.data.android,
      apns: parsed.data.apns,
      webpush: parsed.data.webpush,
    });
    if (!platforms.success) return null;
    return {
      expiresAt: parsed.data.expiresAt,
      android: present({ ...platforms.data.android }),
      apns: present({ ...platforms.data.apns }),
      webpush: present({ ...platforms.data.webpush }),
    } as ResolvedOptions;
  } catch {
    return null;
  }
}
