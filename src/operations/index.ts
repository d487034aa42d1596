import type { Store } from '../store';
import { createReadOperations } from './read-operations';
import type { Operations } from './types';
import { createWriteOperations, type WriteOperationRules } from './write-operations';

export { ClientError, OperationTimeoutError, describeFailure, type Failure } from './errors';
export type { CallContext } from './context';
export type { OperationArgs, OperationResults, Operations } from './types';
export type { PhoneRules } from './phone';
export { DEFAULT_TEMPLATES, FALLBACK_KEY, FALLBACK_TEMPLATE, renderNotification, type NotificationTemplate } from './notification-templates';
export type { WriteOperationRules } from './write-operations';

/** The seven operations, each implemented once, whatever the binding that calls it. */
export function createOperations(store: Store, rules: WriteOperationRules): Operations {
  return { ...createReadOperations(store), ...createWriteOperations(store, rules) };
}
