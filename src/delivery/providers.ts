// The configured providers (PUSH_PROVIDER, SMS_PROVIDER).
import type { Logger } from '../log';
import type { PushSettings, SmsSettings } from './config';
import type { PushProvider, SmsProvider } from './provider';
import { AccessTokenSource } from './push/fcm/access-token';
import { createFcmProvider } from './push/fcm/fcm-provider';
import { createLogPushProvider } from './push/log-push-provider';
import { createWebhookProvider } from './push/webhook-provider';
import { createHttpGatewayProvider } from './sms/http-gateway-provider';
import { createLogSmsProvider } from './sms/log-sms-provider';
import { createTwilioProvider } from './sms/twilio-provider';

export function createPushProvider(settings: PushSettings, timeoutMs: number, logger: Logger): PushProvider {
  switch (settings.provider) {
    case 'log':
      return createLogPushProvider(logger);
    case 'webhook':
      return createWebhookProvider({ url: settings.url, token: settings.token, timeoutMs });
    case 'fcm': {
      const tokens = new AccessTokenSource({ account: settings.account, tokenUrl: settings.tokenUrl ?? undefined, timeoutMs });
      return createFcmProvider({ projectId: settings.projectId, baseUrl: settings.baseUrl, tokens, timeoutMs, http2Sessions: settings.http2Sessions });
    }
  }
}

export function createSmsProvider(settings: SmsSettings, timeoutMs: number, logger: Logger): SmsProvider {
  switch (settings.provider) {
    case 'log':
      return createLogSmsProvider(logger);
    case 'http':
      return createHttpGatewayProvider({ ...settings, timeoutMs });
    case 'twilio':
      return createTwilioProvider({ ...settings, timeoutMs });
  }
}
