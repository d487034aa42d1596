export { parseDeliveryConfig, type DeliveryConfig, type PushSettings, type SmsSettings } from './delivery-config';
