// .NET: Mono's `wsdl` proxy generator and System.Web.Services runtime. One
// `wsdl /protocol:X` per endpoint (its multi-URL mode drops event delegates
// for HttpGet/HttpPost), compiled with the driver per binding.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ENDPOINTS } from '../../../src/contract';
import { ALL_BINDINGS, type Binding } from '../calls';
import { driverFile, isExecutable, isFile } from '../paths';
import { MINUTE, failureOf, mapLimit, run } from '../process';
import { wsdlUrl, type ClientContext, type InteropClient, type Prepared } from './client';

const PROTOCOL: Readonly<Record<Binding, string>> = {
  soap11: 'SOAP',
  soap12: 'SOAP12',
  httpget: 'HttpGet',
  httppost: 'HttpPost',
};
const REFERENCES = ['System.Web.Services', 'System.EnterpriseServices', 'System.Xml'];

export const dotnet: InteropClient = {
  name: 'dotnet',
  title: ".NET: Mono's wsdl proxies on System.Web.Services",
  packages: ['mono-complete'],
  bindings: ALL_BINDINGS,

  faultType: (binding) =>
    binding.startsWith('soap') ? 'System.Web.Services.Protocols.SoapException' : 'System.Net.WebException',
  unauthorizedType: () => 'System.Net.WebException',

  missing() {
    const missing = ['mono', 'wsdl', 'mcs'].filter((tool) => !isExecutable(tool));
    if (!isFile('/usr/lib/mono/4.5/System.Web.Services.dll')) missing.push('System.Web.Services.dll');
    return Promise.resolve(missing);
  },

  async prepare(context) {
    const prepared = await mapLimit(ALL_BINDINGS, 2, (binding) => prepareBinding(context, binding));
    return new Map(ALL_BINDINGS.map((binding, i) => [binding, prepared[i]]));
  },
};

async function prepareBinding(context: ClientContext, binding: Binding): Promise<Prepared> {
  const dir = path.join(context.workDir, binding);
  mkdirSync(dir, { recursive: true });
  const sources: string[] = [];
  for (const endpoint of ENDPOINTS) {
    const out = path.join(dir, `${endpoint.name}.cs`);
    const generate = {
      file: 'wsdl',
      args: [
        '-nologo',
        `-protocol:${PROTOCOL[binding]}`,
        '-namespace:Proxies',
        `-out:${out}`,
        // The auth run's WSDL needs Basic: wsdl answers the 401 challenge with these.
        ...(context.credentials === undefined
          ? []
          : [`-username:${context.credentials.user}`, `-password:${context.credentials.password}`]),
        wsdlUrl(context.baseUrl, endpoint.name),
      ],
    };
    const failure = failureOf(generate, await run(generate, 2 * MINUTE));
    if (failure !== null)
      return { ok: false, message: `wsdl -protocol:${PROTOCOL[binding]} ${endpoint.name}: ${failure}` };
    sources.push(out);
  }
  const exe = path.join(dir, 'driver.exe');
  const compile = {
    file: 'mcs',
    args: [
      '-nologo',
      ...(binding.startsWith('http') ? ['-define:HTTP'] : []),
      ...REFERENCES.map((name) => `-r:${name}`),
      `-out:${exe}`,
      driverFile('dotnet', 'Driver.cs'),
      ...sources,
    ],
  };
  const failure = failureOf(compile, await run(compile, 2 * MINUTE));
  if (failure !== null) return { ok: false, message: failure };
  return { ok: true, driver: { file: 'mono', args: [exe, binding] } };
}
