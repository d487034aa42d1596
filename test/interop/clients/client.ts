// What the runner needs from each client: how to tell it is installed, how to
// build it from our WSDLs, and how to run its driver for one binding.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENDPOINTS } from '../../../src/contract';
import type { Binding } from '../calls';
import type { Command } from '../process';

/** The Basic user of the auth run; drivers get it as INTEROP_USER and INTEROP_PASSWORD. */
export interface Credentials {
  readonly user: string;
  readonly password: string;
}

export interface ClientContext {
  /** The relay's address: the WSDLs fetched through it name it, so every call is recorded. */
  readonly baseUrl: string;
  /** This client's folder for generated code, empty at the start. */
  readonly workDir: string;
  /** In the auth run: what the generator must send to fetch a WSDL that the policy protects. */
  readonly credentials?: Credentials;
}

/** Per binding: the driver to run, or why there is none (the generator's or compiler's own message). */
export type Prepared =
  { readonly ok: true; readonly driver: Command } | { readonly ok: false; readonly message: string };

export interface InteropClient {
  /** Short name used in check names and fixture file names: `dotnet`. */
  readonly name: string;
  readonly title: string;
  /** Debian packages that provide it. */
  readonly packages: readonly string[];
  readonly bindings: readonly Binding[];
  /** False when its recorded requests are not kept in test/interop/fixtures (replayed by test/wire/replay.test.ts). */
  readonly fixtures?: false;
  /** The type our SOAP fault or HTTP error surfaces as in this client. */
  faultType(binding: Binding): string;
  /** The type an HTTP 401 (the auth run, called without credentials) surfaces as in this client. */
  unauthorizedType(binding: Binding): string;
  /** What this machine lacks to run the client; empty when nothing. */
  missing(): Promise<string[]>;
  prepare(context: ClientContext): Promise<ReadonlyMap<Binding, Prepared>>;
}

/** The same outcome for every binding: one generator serves them all. */
export function forAll(bindings: readonly Binding[], prepared: Prepared): ReadonlyMap<Binding, Prepared> {
  return new Map(bindings.map((binding): [Binding, Prepared] => [binding, prepared]));
}

/** A driver per binding, for clients that have nothing to build or built it once for all. */
export function drivers(
  bindings: readonly Binding[],
  driver: (binding: Binding) => Command,
): ReadonlyMap<Binding, Prepared> {
  return new Map(bindings.map((binding): [Binding, Prepared] => [binding, { ok: true, driver: driver(binding) }]));
}

/** The WSDL address of every endpoint the contract declares. */
export function wsdlUrl(baseUrl: string, endpoint: string): string {
  return `${baseUrl}/${endpoint}.asmx?wsdl`;
}

/**
 * Saves every endpoint's WSDL, fetched with the auth run's Basic credentials, as
 * `<workDir>/wsdl/<Endpoint>.wsdl` (or another extension) and returns that folder: what a
 * caller bundles with its client when a tool cannot send credentials (svcutil) or when
 * fetching the WSDL at run time would need credentials the calls must not reuse (docs/interop.md).
 */
export async function saveWsdls(
  context: ClientContext & { readonly credentials: Credentials },
  extension = '.wsdl',
): Promise<string> {
  const dir = path.join(context.workDir, 'wsdl');
  mkdirSync(dir, { recursive: true });
  const { user, password } = context.credentials;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  for (const endpoint of ENDPOINTS) {
    const response = await fetch(wsdlUrl(context.baseUrl, endpoint.name), { headers: { authorization } });
    if (!response.ok) throw new Error(`GET ${endpoint.name}.asmx?wsdl with credentials: HTTP ${response.status}`);
    writeFileSync(path.join(dir, `${endpoint.name}${extension}`), Buffer.from(await response.arrayBuffer()));
  }
  return dir;
}
