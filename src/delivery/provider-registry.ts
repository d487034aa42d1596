// Every provider, listed once. The configuration offers these names in
// PUSH_PROVIDER and SMS_PROVIDER (the first of each list is the default, and
// the order is the order of the error message) and reads every variable they
// declare; the wiring creates the chosen one. Adding one: its module, with
// its descriptor (provider-descriptor.ts), and its line here
// (docs/delivery.md#adding-a-provider).
import type { Logger } from '../log';
import type { AnyProviderDescriptor, ChosenSettings } from './provider-descriptor';
import type { PushProvider, SmsProvider } from './provider';
import { fcm } from './push/fcm/fcm-provider';
import { logPush } from './push/log-push-provider';
import { webhook } from './push/webhook-provider';
import { httpGateway } from './sms/http-gateway-provider';
import { logSms } from './sms/log-sms-provider';
import { twilio } from './sms/twilio-provider';

export const PUSH_PROVIDERS = [logPush, fcm, webhook] as const;
export const SMS_PROVIDERS = [logSms, httpGateway, twilio] as const;

/** The chosen push provider and its settings, as the configuration holds them. */
export type PushSettings = ChosenSettings<(typeof PUSH_PROVIDERS)[number]>;
/** The chosen SMS provider and its settings. */
export type SmsSettings = ChosenSettings<(typeof SMS_PROVIDERS)[number]>;

export function createPushProvider(settings: PushSettings, timeoutMs: number, logger: Logger): PushProvider {
  return create(PUSH_PROVIDERS, settings, timeoutMs, logger);
}

export function createSmsProvider(settings: SmsSettings, timeoutMs: number, logger: Logger): SmsProvider {
  return create(SMS_PROVIDERS, settings, timeoutMs, logger);
}

function create<Provider>(
  descriptors: readonly AnyProviderDescriptor<Provider>[],
  settings: { readonly provider: string },
  timeoutMs: number,
  logger: Logger,
): Provider {
  // The settings came from the descriptor of this name (config/provider-choice.ts), so they are of its type.
  const descriptor = descriptors.find((candidate) => candidate.name === settings.provider);
  if (descriptor === undefined) throw new Error(`No provider "${settings.provider}"`);
  return descriptor.create(settings, timeoutMs, logger);
}
