// What a provider module exports for the registry (provider-registry.ts): its
// name, the environment variables it reads, how their values become its
// settings, and how the settings become a provider. The configuration and the
// wiring go through the registry and never name a provider, so that a new one
// is its own module and a line in the registry (docs/delivery.md#adding-a-provider).
import type { z } from 'zod';
import type { Logger } from '../log';
import type { PushProvider, SmsProvider } from './provider';

export interface ProviderDescriptor<Name extends string, Env extends z.ZodRawShape, Settings, Provider> {
  /** The value of PUSH_PROVIDER or SMS_PROVIDER that chooses it; also the provider's `name` in metrics and the log. */
  readonly name: Name;
  /**
   * The zod readers of its variables, each failing with a message that names
   * the variable. They are checked whichever provider is chosen, as they always
   * were: a bad value is reported at start even while it is not used.
   */
  readonly env: Env;
  /**
   * Its variables' values (defaults applied) → its settings, or null after
   * pushing each problem as `NAME: what is wrong`. `chosenBy` is how it was
   * chosen (`SMS_PROVIDER=twilio`), for "required with …".
   */
  settings(values: z.output<z.ZodObject<Env>>, problems: string[], chosenBy: string): Settings | null;
  /** The provider itself; `timeoutMs` limits each call (DELIVERY_TIMEOUT_MS). */
  create(settings: Settings, timeoutMs: number, logger: Logger): Provider;
}

/** A descriptor whatever its variables and settings, as the registry's lists hold them. */
export type AnyProviderDescriptor<Provider> = ProviderDescriptor<string, z.ZodRawShape, unknown, Provider>;

/** The settings of one provider as the configuration holds them: its own, tagged with its name. */
export type ChosenSettings<D> =
  D extends ProviderDescriptor<infer Name, z.ZodRawShape, infer Settings, unknown>
    ? { readonly provider: Name } & Settings
    : never;

/** A push provider's descriptor, its types inferred from the object. */
export function pushProvider<const Name extends string, Env extends z.ZodRawShape, Settings>(
  descriptor: ProviderDescriptor<Name, Env, Settings, PushProvider>,
): ProviderDescriptor<Name, Env, Settings, PushProvider> {
  return descriptor;
}

/** An SMS provider's descriptor, its types inferred from the object. */
export function smsProvider<const Name extends string, Env extends z.ZodRawShape, Settings>(
  descriptor: ProviderDescriptor<Name, Env, Settings, SmsProvider>,
): ProviderDescriptor<Name, Env, Settings, SmsProvider> {
  return descriptor;
}

/** Pushes `NAMES: required with BECAUSE` (the message the configuration has always given) and returns null, a settings parser's answer. */
export function required(problems: string[], names: string, because: string, hint = ''): null {
  problems.push(`${names}: required with ${because}${hint}`);
  return null;
}
