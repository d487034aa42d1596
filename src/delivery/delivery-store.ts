import type {
  ClaimedAuthCodeMessage,
  ClaimedPushNotification,
  DeliveryCompletionEntry,
  OutboxChannelStats,
} from '../store';

/** What the worker needs of the store (the opened store provides it). */
export interface DeliveryStore {
  claimPushNotifications(limit: number, leaseSeconds: number): Promise<ClaimedPushNotification[]>;
  claimAuthCodeMessages(limit: number, leaseSeconds: number): Promise<ClaimedAuthCodeMessage[]>;
  /** One transaction for the lot; per entry, whether its claim was still current. */
  completeDeliveries(completions: readonly DeliveryCompletionEntry[]): Promise<boolean[]>;
  removeDeviceToken(deviceId: string, token: string): Promise<boolean>;
  outboxStats(): Promise<OutboxChannelStats[]>;
}
