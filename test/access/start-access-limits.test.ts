// The access limits as the server starts them: in the shutdown sequence they
// stop after the requests drained and before the store closes, so the last
// audit entries and budget counts reach the store.
import { startAccessLimits } from '../../src/access/start-access-limits';
import { createShutdown } from '../../src/lifecycle';
import { storeVariants } from '../support/stores';
import { capturingLogger } from '../support/logs';

describe.each(storeVariants())('access limits in the shutdown sequence on $name', (variant) => {
  it('writes the audit buffer and the last counts before the store closes', async () => {
    const ctx = await variant.create();
    try {
      const { logger } = capturingLogger();
      const store = await ctx.reopen();
      const limits = startAccessLimits({ store: store.access, logger, auditRetentionDays: 90, syncIntervalMs: 60_000 });
      const shutdown = createShutdown({ logger, timeoutMs: 5000 });
      shutdown.register('store', () => store.lifecycle.close());
      shutdown.register('access limits', () => limits.stop());

      const now = Date.now();
      expect(
        limits.budgets.take(
          'NotificationNotes.asmx/GetStudentSchool',
          '10.0.0.1',
          { max: 10, windowMs: 3_600_000 },
          now,
        ).ok,
      ).toBe(true);
      expect(limits.enumeration.note('E/Op', '10.0.0.1', '1001', { max: 10, windowMs: 3_600_000 }, now).ok).toBe(true);
      limits.audit.record({
        at: new Date(now),
        address: '10.0.0.1',
        user: null,
        endpoint: 'NotificationNotes.asmx',
        operation: 'GetStudentSchool',
        subjectKind: 'school',
        subject: 'https://a.example',
        outcome: 'allowed',
        reason: null,
      });
      expect(await shutdown.run('test')).toEqual({ clean: true });

      expect(await ctx.query('select operation from access_audit')).toEqual([{ operation: 'GetStudentSchool' }]);
      const counters = await ctx.query<{ count: number }>('select count from access_counters');
      // Shared through the store on PostgreSQL only.
      expect(counters).toEqual(variant.name === 'postgres' ? [{ count: 1 }] : []);
      await limits.stop();
    } finally {
      await ctx.cleanup();
    }
  });
});
