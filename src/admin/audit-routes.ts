// The audit trail of reads of personal data (docs/access-limits.md), newest first,
// with filters; entries are written by src/access/audit-trail.ts.
import { z } from 'zod';
import type { AuditPage, AuditQuery } from '../store';
import { pageBody } from './paging';
import { route, type AdminRoute } from './route-table';
import { AuditEntry, AuditListQuery, Paging, pageOf } from './schemas';

/** What the audit listing needs of the store (the opened store has it). */
export interface AuditListing {
  listAuditEntries(query: AuditQuery): Promise<AuditPage>;
}

export function auditRoutes(store: AuditListing): AdminRoute[] {
  return [
    route({
      method: 'get',
      path: '/audit',
      operationId: 'list_audit',
      summary: 'List the audit trail of reads of personal data, newest first',
      description:
        'Every filter is an exact match except from (inclusive) and to (exclusive). Entries older than AUDIT_RETENTION_DAYS are deleted. ' +
        'A page holds at most limit entries and stops once its entries reach about 1 MiB of JSON: continue from nextOffset.',
      tag: 'Audit',
      query: Paging.extend(AuditListQuery.shape),
      responses: { 200: { description: 'A page of entries', schema: pageOf(AuditEntry) } },
      async handle({ query }) {
        const { limit, offset, ...filters } = query;
        const page = await store.listAuditEntries({ ...filters, limit, offset });
        const items = page.items as z.output<typeof AuditEntry>[];
        return { status: 200, body: pageBody(items, page.total, limit, offset) };
      },
    }),
  ];
}
