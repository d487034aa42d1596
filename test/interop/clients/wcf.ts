// WCF: Mono's svcutil and System.ServiceModel, a BasicHttpBinding client per
// endpoint (SOAP 1.1, the binding WCF callers of an ASMX service use).
// svcutil reads metadata from a URL only (a path must name an assembly), and
// cannot send credentials: the auth run gives it `file:` URLs of WSDL copies
// fetched with Basic. Its output needs one fix before it can call ASMX at all
// (see fixActions).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENDPOINTS } from '../../../src/contract';
import type { Binding } from '../calls';
import { driverFile, isExecutable, isFile } from '../paths';
import { MINUTE, failureOf, mapLimit, run } from '../process';
import { drivers, forAll, saveWsdls, wsdlUrl, type InteropClient } from './client';

const SVCUTIL = '/usr/lib/mono/4.5/svcutil.exe';
const BINDINGS: readonly Binding[] = ['soap11'];
const REFERENCES = ['System.ServiceModel', 'System.Runtime.Serialization'];

export const wcf: InteropClient = {
  name: 'wcf',
  title: "WCF: Mono's svcutil clients on System.ServiceModel",
  packages: ['mono-complete'],
  bindings: BINDINGS,
  // Not among the replayed fixtures yet (they stay the four clients' set);
  // what it sent is in .generated/wcf-exchanges.log.
  fixtures: false,

  faultType: () => 'System.ServiceModel.FaultException',
  // Mono's HTTP channel lets the WebException through (.NET Framework wraps it in a MessageSecurityException).
  unauthorizedType: () => 'System.Net.WebException',

  missing() {
    const missing = ['mono', 'mcs'].filter((tool) => !isExecutable(tool));
    for (const file of [SVCUTIL, '/usr/lib/mono/4.5/System.ServiceModel.dll']) if (!isFile(file)) missing.push(file);
    return Promise.resolve(missing);
  },

  async prepare(context) {
    let metadata = (endpoint: string) => wsdlUrl(context.baseUrl, endpoint);
    if (context.credentials !== undefined) {
      // No extension: svcutil refuses a .wsdl as it does any path that is not an assembly, but not a file: URL without one.
      const dir = await saveWsdls({ ...context, credentials: context.credentials }, '');
      metadata = (endpoint) => pathToFileURL(path.join(dir, endpoint)).href;
    }
    const sources = ENDPOINTS.map((endpoint) => path.join(context.workDir, `${endpoint.name}.cs`));
    const failures = await mapLimit(ENDPOINTS, 2, async (endpoint) => {
      const out = path.join(context.workDir, `${endpoint.name}.cs`);
      const generate = {
        file: 'mono',
        args: [SVCUTIL, '--noLogo', '--noConfig', `--out=${out}`, metadata(endpoint.name)],
        cwd: context.workDir,
      };
      const failure = failureOf(generate, await run(generate, 2 * MINUTE));
      if (failure !== null) return `svcutil ${endpoint.name}: ${failure}`;
      fixActions(out);
      return null;
    });
    const failure = failures.find((each) => each !== null);
    if (failure) return forAll(BINDINGS, { ok: false, message: failure });

    const exe = path.join(context.workDir, 'driver.exe');
    const compile = {
      file: 'mcs',
      args: [
        '-nologo',
        ...REFERENCES.map((name) => `-r:${name}`),
        `-out:${exe}`,
        driverFile('wcf', 'Driver.cs'),
        ...sources,
      ],
    };
    const compileFailure = failureOf(compile, await run(compile, 2 * MINUTE));
    if (compileFailure !== null) return forAll(BINDINGS, { ok: false, message: compileFailure });
    return drivers(BINDINGS, (binding) => ({ file: 'mono', args: [exe, binding, context.baseUrl] }));
  },
};

/**
 * Mono's svcutil writes every operation as `Action="*"` with the WSDL's
 * soapAction in ReplyAction, so the client sends `SOAPAction: "*"`, which
 * ASMX (and so this service) refuses: "Server did not recognize the value of
 * HTTP Header SOAPAction: *." Put the soapAction back where WCF sends it from.
 */
function fixActions(file: string): void {
  const source = readFileSync(file, 'utf8');
  const fixed = source.replace(/Action="\*", ReplyAction="([^"]+)"/g, 'Action="$1", ReplyAction="$1Response"');
  if (fixed === source)
    throw new Error(`svcutil's ${path.basename(file)} has no Action="*" to fix: has svcutil changed?`);
  writeFileSync(file, fixed);
}
