// A list's page as every admin listing answers it (docs/operating.md#admin-api):
// at most `limit` items, and no more than fit in a byte budget, so that a
// page of large rows (notes of 8,000 characters, messages with long bodies,
// audit entries written before their subjects were cut) stays about a
// megabyte. A page cut short by the budget gives the offset of the next item
// in `nextOffset`, as a page cut by `limit` does: a client that follows
// `nextOffset` reads every item once.

/** The JSON of a page's items stops growing once it reaches this many bytes (one item always goes, whatever its size). */
export const PAGE_BYTE_BUDGET = 1024 * 1024;

export interface PageBody<T> {
  readonly items: T[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
  readonly nextOffset: number | null;
}

/** The first of `items` whose JSON fits in `budget` bytes (the one that reaches it included, so that a page is never empty). */
export function withinBytes<T>(items: readonly T[], budget: number = PAGE_BYTE_BUDGET): T[] {
  const kept: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (kept.length > 0 && bytes >= budget) break;
    bytes += Buffer.byteLength(JSON.stringify(item) ?? 'null') + 1;
    kept.push(item);
  }
  return kept;
}

/** The answer of a list: the items that fit, the total, and the offset of the next page (null on the last). */
export function pageBody<T>(
  items: readonly T[],
  total: number,
  limit: number,
  offset: number,
  budget: number = PAGE_BYTE_BUDGET,
): PageBody<T> {
  const kept = withinBytes(items, budget);
  const nextOffset = offset + kept.length < total ? offset + kept.length : null;
  return { items: kept, total, limit, offset, nextOffset };
}
