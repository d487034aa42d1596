// The delivery folder's door: start a worker from the configuration, and the
// types other folders (metrics, tests) plug into.
export { parseDeliveryConfig, type DeliveryConfig, type PushSettings, type SmsSettings } from './config';
export { DELIVERY_STOP_MS, startDelivery, type RunningDelivery, type StartDeliveryOptions } from './start-delivery';
export { DeliveryWorker, type DeliveryWorkerOptions } from './worker';
export type { DeliveryStore } from './delivery-store';
export type { DeliveryAttempt, DeliveryChannel, DeliveryObserver, DeliveryOutcome } from './observer';
export type {
  PushMessage,
  PushProvider,
  SendFailure,
  SendResult,
  SendSuccess,
  SmsMessage,
  SmsProvider,
} from './provider';
export { createPushProvider, createSmsProvider } from './provider-registry';
export { retryDelayMs, type RetryPolicy } from './retry-policy';
