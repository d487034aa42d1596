// One adaptive limit per channel: FCM and the SMS gateway are different
// services, and one struggling must not slow the other down.
import { AdaptiveLimit } from './adaptive-limit';

export interface DeliveryLimits {
  readonly push: AdaptiveLimit;
  readonly sms: AdaptiveLimit;
}

export function createDeliveryLimits(options: { floor: number; ceiling: number; now?: () => number }): DeliveryLimits {
  const floor = Math.min(options.floor, options.ceiling);
  return {
    push: new AdaptiveLimit({ floor, ceiling: options.ceiling, now: options.now }),
    sms: new AdaptiveLimit({ floor, ceiling: options.ceiling, now: options.now }),
  };
}
