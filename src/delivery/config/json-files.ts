// The JSON files the delivery configuration names: template overrides. Each
// problem names the variable and the file, and says what was expected.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MessageOptionsSchema, type NotificationTemplate } from '../../domain';

type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

export function readTextFile(name: string, file: string): Read<string> {
  try {
    return { ok: true, value: readFileSync(file, 'utf8') };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, problem: `${name}: cannot read ${file} (${typeof code === 'string' ? code : 'unreadable'})` };
  }
}

function readJson<T>(name: string, file: string, schema: z.ZodType<T>, expected: string): Read<T> {
  const text = readTextFile(name, file);
  if (!text.ok) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value);
  } catch {
    return { ok: false, problem: `${name}: ${file} is not JSON (expected ${expected})` };
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      ok: false,
      problem: `${name}: ${file} at ${issue.path.join('.') || 'the top'}: ${issue.message} (expected ${expected})`,
    };
  }
  return { ok: true, value: result.data };
}

const localised = z.object({ title: z.string().min(1), body: z.string().min(1) });
const notificationTemplates = z.record(
  z.string(),
  z.object({ ar: localised, en: localised, options: MessageOptionsSchema.optional() }),
);

/** `{ "absence": { "ar": { "title", "body" }, "en": { … }, "options": { … } }, "*": … }`; keys are matched case-insensitively. */
export function readNotificationTemplates(name: string, file: string): Read<Record<string, NotificationTemplate>> {
  const read = readJson(
    name,
    file,
    notificationTemplates,
    'an object of types, each with ar and en title and body, and options',
  );
  if (!read.ok) return read;
  return {
    ok: true,
    value: Object.fromEntries(
      Object.entries(read.value).map(([type, template]) => [type.trim().toLowerCase(), template]),
    ),
  };
}

const smsTemplates = z.record(
  z.string(),
  z.string().refine((text) => text.includes('{code}'), 'a template without {code}'),
);

/** `{ "ar": "… {code} …", "en": "… {code} …" }`. */
export function readSmsTemplates(name: string, file: string): Read<Record<string, string>> {
  return readJson(name, file, smsTemplates, 'an object of languages, each a text with {code}');
}
