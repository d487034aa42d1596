// Java: JAX-WS RI's wsimport (-extension, so that it binds the SOAP 1.2
// ports) and runtime from Debian's libjaxws-java, compiled with javac. One
// package per endpoint; both SOAP bindings share the generated code.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENDPOINTS } from '../../../src/contract';
import type { Binding } from '../calls';
import { driverFile, isExecutable, isFile } from '../paths';
import { MINUTE, failureOf, mapLimit, run } from '../process';
import { drivers, forAll, saveWsdls, wsdlUrl, type ClientContext, type InteropClient } from './client';

// Their manifests' Class-Path entries bring in the rest (JAXB, SAAJ, StAX, ...).
const TOOLS_JAR = '/usr/share/java/jaxws-tools.jar';
const RUNTIME_JAR = '/usr/share/java/jaxws-rt.jar';
const BINDINGS: readonly Binding[] = ['soap11', 'soap12'];

export const java: InteropClient = {
  name: 'java',
  title: 'Java: JAX-WS RI wsimport proxies',
  packages: ['libjaxws-java'],
  bindings: BINDINGS,

  faultType: () => 'javax.xml.ws.soap.SOAPFaultException',
  // The RI's transport error for any HTTP status it cannot read as SOAP: "The server sent HTTP status code 401: Unauthorized".
  unauthorizedType: () => 'com.sun.xml.ws.client.ClientTransportException',

  missing() {
    const missing = ['java', 'javac'].filter((tool) => !isExecutable(tool));
    for (const jar of [TOOLS_JAR, RUNTIME_JAR]) if (!isFile(jar)) missing.push(jar);
    return Promise.resolve(missing);
  },

  async prepare(context) {
    const generated = path.join(context.workDir, 'src');
    const classes = path.join(context.workDir, 'classes');
    mkdirSync(generated, { recursive: true });
    mkdirSync(classes, { recursive: true });

    const authFile = writeAuthFile(context);
    const failures = await mapLimit(ENDPOINTS, 2, async (endpoint) => {
      const generate = {
        file: 'java',
        args: [
          '-cp',
          TOOLS_JAR,
          'com.sun.tools.ws.WsImport',
          '-extension',
          '-Xnocompile',
          '-quiet',
          ...(authFile === null ? [] : ['-Xauthfile', authFile]),
          '-p',
          `interop.${endpoint.name.toLowerCase()}`,
          '-d',
          generated,
          wsdlUrl(context.baseUrl, endpoint.name),
        ],
      };
      const failure = failureOf(generate, await run(generate, 2 * MINUTE));
      return failure === null ? null : `wsimport ${endpoint.name}: ${failure}`;
    });
    const failure = failures.find((each) => each !== null);
    if (failure) return forAll(BINDINGS, { ok: false, message: failure });

    const compile = {
      file: 'javac',
      args: [
        '-encoding',
        'UTF-8',
        '-nowarn',
        '-cp',
        RUNTIME_JAR,
        '-d',
        classes,
        driverFile('java', 'Driver.java'),
        ...javaFiles(generated),
      ],
    };
    const compileFailure = failureOf(compile, await run(compile, 3 * MINUTE));
    if (compileFailure !== null) return forAll(BINDINGS, { ok: false, message: compileFailure });

    // The auth run: the proxies read the WSDLs from local copies (see Driver.java for why).
    let wsdlDir: string[] = [];
    if (context.credentials !== undefined)
      wsdlDir = [await saveWsdls({ ...context, credentials: context.credentials })];
    return drivers(BINDINGS, (binding) => ({
      file: 'java',
      args: ['-cp', `${classes}:${RUNTIME_JAR}`, 'Driver', binding, ...wsdlDir],
    }));
  },
};

/**
 * wsimport has no credential options: it reads them from an auth file, one
 * `http://user:password@host:port/path?wsdl` line per WSDL (-Xauthfile; the
 * default is ~/.metro/auth), and answers the 401 challenge with them.
 */
function writeAuthFile(context: ClientContext): string | null {
  const credentials = context.credentials;
  if (credentials === undefined) return null;
  const file = path.join(context.workDir, 'auth');
  const lines = ENDPOINTS.map((endpoint) => {
    const url = new URL(wsdlUrl(context.baseUrl, endpoint.name));
    url.username = encodeURIComponent(credentials.user);
    url.password = encodeURIComponent(credentials.password);
    return url.toString();
  });
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

function javaFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.java'))
    .map((file) => path.join(dir, file));
}
