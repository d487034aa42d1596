export { AdaptiveLimit, type AdaptiveLimitOptions, type SendSignal } from './adaptive-limit';
export { createDeliveryLimits, type DeliveryLimits } from './delivery-limits';
