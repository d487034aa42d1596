// The service's wire (every binding) over the real operations on a test's
// store, with the delivery rules a test chooses: Syrian phones, and whatever
// limits and hooks it adds.
import pino from 'pino';
import { loadServiceModel } from '../../src/contract';
import { createOperations, type OperationRules } from '../../src/operations';
import { createApp, type App } from '../../src/server';
import type { Store } from '../../src/store';

export async function operationsApp(store: Store, rules: Partial<OperationRules> = {}): Promise<App> {
  const operations = createOperations(store, { phone: { defaultRegion: 'SY', allowedCountries: ['SY'] }, ...rules });
  return createApp({
    endpoints: await loadServiceModel('http://tempuri.org/'),
    operations,
    logger: pino({ level: 'silent' }),
    bodyLimit: 1048576,
    trustProxy: false,
    operationTimeoutMs: 5000,
    helpPages: false,
  });
}
