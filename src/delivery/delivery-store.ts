import type { AuthCodeClaim, ClaimedPushNotification, DeliveryCompletionEntry, OutboxChannelStats } from '../store';

/** What the worker needs of the store (the opened store provides it). */
export interface DeliveryStore {
  claimPushNotifications(limit: number, leaseSeconds: number): Promise<ClaimedPushNotification[]>;
  /** The due login codes, and those just found interrupted after reaching the gateway (now `uncertain`). */
  claimAuthCodeMessages(limit: number, leaseSeconds: number): Promise<AuthCodeClaim>;
  /** Before a gateway that cannot drop a repeat is called: false when the claim is no longer current. */
  markSmsSendStarted(id: string, claimToken: string): Promise<boolean>;
  /** One transaction for the lot; per entry, whether its claim was still current. */
  completeDeliveries(completions: readonly DeliveryCompletionEntry[]): Promise<boolean[]>;
  removeDeviceToken(deviceId: string, token: string): Promise<boolean>;
  outboxStats(): Promise<OutboxChannelStats[]>;
}
