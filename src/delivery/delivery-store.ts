import type { ClaimedAuthCodeMessage, ClaimedPushNotification, DeliveryCompletion, OutboxChannel, OutboxChannelStats } from '../store';

/** What the worker needs of the store (SqlStore provides it). */
export interface DeliveryStore {
  claimPushNotifications(limit: number, leaseSeconds: number): Promise<ClaimedPushNotification[]>;
  claimAuthCodeMessages(limit: number, leaseSeconds: number): Promise<ClaimedAuthCodeMessage[]>;
  completeDelivery(channel: OutboxChannel, id: string, claimToken: string, completion: DeliveryCompletion): Promise<boolean>;
  removeDeviceToken(deviceId: string, token: string): Promise<boolean>;
  outboxStats(): Promise<OutboxChannelStats[]>;
}
