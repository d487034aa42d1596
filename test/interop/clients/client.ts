// What the runner needs from each client: how to tell it is installed, how to
// build it from our WSDLs, and how to run its driver for one binding.
import type { Binding } from '../calls';
import type { Command } from '../process';

export interface ClientContext {
  /** The relay's address: the WSDLs fetched through it name it, so every call is recorded. */
  readonly baseUrl: string;
  /** This client's folder for generated code, empty at the start. */
  readonly workDir: string;
}

/** Per binding: the driver to run, or why there is none (the generator's or compiler's own message). */
export type Prepared = { readonly ok: true; readonly driver: Command } | { readonly ok: false; readonly message: string };

export interface InteropClient {
  /** Short name used in check names and fixture file names: `dotnet`. */
  readonly name: string;
  readonly title: string;
  /** Debian packages that provide it. */
  readonly packages: readonly string[];
  readonly bindings: readonly Binding[];
  /** The type our SOAP fault or HTTP error surfaces as in this client. */
  faultType(binding: Binding): string;
  /** What this machine lacks to run the client; empty when nothing. */
  missing(): Promise<string[]>;
  prepare(context: ClientContext): Promise<ReadonlyMap<Binding, Prepared>>;
}

/** The same outcome for every binding: one generator serves them all. */
export function forAll(bindings: readonly Binding[], prepared: Prepared): ReadonlyMap<Binding, Prepared> {
  return new Map(bindings.map((binding): [Binding, Prepared] => [binding, prepared]));
}

/** A driver per binding, for clients that have nothing to build or built it once for all. */
export function drivers(bindings: readonly Binding[], driver: (binding: Binding) => Command): ReadonlyMap<Binding, Prepared> {
  return new Map(bindings.map((binding): [Binding, Prepared] => [binding, { ok: true, driver: driver(binding) }]));
}

/** The WSDL address of every endpoint the contract declares. */
export function wsdlUrl(baseUrl: string, endpoint: string): string {
  return `${baseUrl}/${endpoint}.asmx?wsdl`;
}
