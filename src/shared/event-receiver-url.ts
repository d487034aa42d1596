// A school's event receiver (docs/delivery.md#delivery-events): the one rule
// the admin API, the console and the import check a subscription's URL with.
// An absolute https:// URL (http:// only with EVENTS_ALLOW_HTTP=true), without
// a user name or password in it: the URL is shown and logged.

/** The longest receiver URL kept. */
export const MAX_RECEIVER_URL = 2048;

/** The URL as stored (normalised by WHATWG URL), or what is wrong with it in plain words. */
export function checkReceiverUrl(
  text: string,
  allowHttp: boolean,
): { readonly url: string } | { readonly problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: 'The url is empty.' };
  if (trimmed.length > MAX_RECEIVER_URL) return { problem: `The url is longer than ${MAX_RECEIVER_URL} characters.` };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { problem: 'The url is not an absolute URL.' };
  }
  if (url.protocol === 'http:' && !allowHttp)
    return { problem: 'The url must be https:// (http:// only with EVENTS_ALLOW_HTTP=true).' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'The url must be https://.' };
  if (url.username !== '' || url.password !== '') return { problem: 'The url must not carry a user name or password.' };
  if (url.href.length > MAX_RECEIVER_URL) return { problem: `The url is longer than ${MAX_RECEIVER_URL} characters.` };
  return { url: url.href };
}
