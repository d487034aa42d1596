import type { Outbox } from '../store';

/** What the worker needs of the store (the opened store's outbox role provides it; outbox-role.ts says what each does). */
export type DeliveryStore = Pick<
  Outbox,
  | 'claimPushNotifications'
  | 'claimAuthCodeMessages'
  | 'markSmsSendStarted'
  | 'completeDeliveries'
  | 'removeDeviceToken'
  | 'schoolFcmProjects'
  | 'outboxStats'
>;
