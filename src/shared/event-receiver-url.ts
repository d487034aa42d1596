// A school's event receiver (docs/delivery.md#delivery-events): the one rule
// the admin API, the console and the import check a subscription's URL with.
// An absolute https:// URL (http:// only with EVENTS_ALLOW_HTTP=true), without
// a user name or password in it: the URL is shown and logged.

/** The longest receiver URL kept. */
export const MAX_RECEIVER_URL = 2048;

/** Why a URL is refused: the console says it in its language, the admin API and the import in `problem`. */
export type ReceiverUrlRefusal = 'empty' | 'too_long' | 'not_absolute' | 'not_https' | 'credentials';

const PROBLEMS: Readonly<Record<ReceiverUrlRefusal, string>> = {
  empty: 'The url is empty.',
  too_long: `The url is longer than ${MAX_RECEIVER_URL} characters.`,
  not_absolute: 'The url is not an absolute URL.',
  not_https: 'The url must be https:// (http:// only with EVENTS_ALLOW_HTTP=true).',
  credentials: 'The url must not carry a user name or password.',
};

/** The URL as stored (normalised by WHATWG URL), or why it is refused, in plain words. */
export function checkReceiverUrl(
  text: string,
  allowHttp: boolean,
): { readonly url: string } | { readonly refusal: ReceiverUrlRefusal; readonly problem: string } {
  const refuse = (refusal: ReceiverUrlRefusal) => ({ refusal, problem: PROBLEMS[refusal] });
  const trimmed = text.trim();
  if (trimmed === '') return refuse('empty');
  if (trimmed.length > MAX_RECEIVER_URL) return refuse('too_long');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return refuse('not_absolute');
  }
  if (url.protocol === 'http:' && !allowHttp) return refuse('not_https');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('not_https');
  if (url.username !== '' || url.password !== '') return refuse('credentials');
  if (url.href.length > MAX_RECEIVER_URL) return refuse('too_long');
  return { url: url.href };
}
