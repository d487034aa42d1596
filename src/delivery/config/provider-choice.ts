// One channel's provider in the configuration, from the registry's list
// (src/delivery/provider-registry.ts): the variable that chooses it, with the
// names the list offers, and every provider's own variables; then the chosen
// provider's settings, from its descriptor. `doc` describes the variable in
// docs/configuration.md.
import { z } from 'zod';
import type { SettingDoc } from '../../config-values';
import type { AnyProviderDescriptor, ChosenSettings } from '../provider-descriptor';

export interface ProviderChoice<D> {
  /** The zod readers of `variable` (the first provider the default) and of every provider's variables, in the list's order. */
  readonly env: z.ZodRawShape;
  /** The chosen provider's settings tagged with its name, or null after pushing its problems. */
  settings(values: Readonly<Record<string, unknown>>, problems: string[]): ChosenSettings<D> | null;
}

type Descriptors = readonly [AnyProviderDescriptor<unknown>, ...AnyProviderDescriptor<unknown>[]];

export function providerChoice<L extends Descriptors>(
  variable: string,
  descriptors: L,
  doc: SettingDoc,
): ProviderChoice<L[number]> {
  const names = descriptors.map((descriptor) => descriptor.name);
  const choice = z
    .enum(names, { error: `${variable} must be ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` })
    .default(names[0])
    .meta({ ...doc });
  return {
    env: Object.assign({ [variable]: choice }, ...descriptors.map((descriptor) => descriptor.env)) as z.ZodRawShape,
    settings(values, problems) {
      const name = values[variable];
      // The enum let only the list's names through.
      const descriptor = descriptors.find((candidate) => candidate.name === name) as L[number];
      const settings = descriptor.settings(values, problems, `${variable}=${descriptor.name}`);
      // Tagged with the name it was chosen by, which createPushProvider and createSmsProvider look up.
      return settings === null
        ? null
        : ({ provider: descriptor.name, ...(settings as object) } as ChosenSettings<L[number]>);
    },
  };
}
