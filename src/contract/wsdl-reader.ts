// Reads a WSDL through node-soap, which is what the SOAP bindings are built
// on, into a plain table: service, bindings, ports, and per operation its
// SOAP actions, request and response elements, parameters and result shape.
// node-soap's object model is untyped: everything it returns is read here
// and nowhere else. The generator (generate.ts) and the start-up check
// (wsdl-model.ts) both read the WSDL files through this module.
import path from 'node:path';
import { WSDL } from 'soap';

export const WSDL_DIR = path.resolve(__dirname, '..', '..', 'wsdl');

export interface ParsedOperation {
  soapActions: Set<string>;
  requestElement: string;
  responseElement: string;
  targetNamespace: string;
  parameters: { name: string; type: string }[];
  output: Record<string, unknown>;
}

export interface ParsedWsdl {
  serviceName: string;
  bindings: string[];
  ports: string[];
  operations: Map<string, ParsedOperation>;
}

// The parts of node-soap's (untyped) object model read here.
interface SoapMessage {
  readonly $targetNamespace?: string;
  description(definitions: SoapDefinitions): Record<string, Record<string, unknown>>;
}
interface SoapMethod {
  readonly soapAction: string;
  readonly input: SoapMessage;
  readonly output: SoapMessage;
}
interface SoapDefinitions {
  readonly $targetNamespace: string;
  readonly bindings: Record<string, { readonly methods: Record<string, SoapMethod> }>;
  readonly services: Record<string, { readonly ports?: Record<string, unknown> } | undefined>;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

export function parseWsdl(xml: string, endpoint: string): Promise<ParsedWsdl> {
  return new Promise((resolve, reject) => {
    let wsdl: WSDL;
    try {
      wsdl = new WSDL(xml, `file://${path.join(WSDL_DIR, endpoint + '.wsdl')}`, {});
    } catch (err) {
      reject(asError(err));
      return;
    }
    wsdl.onReady((err) => {
      if (err) {
        reject(asError(err));
        return;
      }
      try {
        // node-soap declares its definitions without the parts read here
        // (SoapDefinitions, above, says which); the compiler cannot know them.
        resolve(readDefinitions(wsdl.definitions as unknown as SoapDefinitions));
      } catch (readErr) {
        reject(asError(readErr));
      }
    });
  });
}

function readDefinitions(definitions: SoapDefinitions): ParsedWsdl {
  const operations = new Map<string, ParsedOperation>();
  const bindings = Object.keys(definitions.bindings);
  for (const bindingName of bindings) {
    const methods = definitions.bindings[bindingName].methods;
    for (const [name, method] of Object.entries(methods)) {
      const input = method.input.description(definitions);
      const output = method.output.description(definitions);
      const requestElement = Object.keys(input)[0] ?? '';
      const responseElement = Object.keys(output)[0] ?? '';
      const existing = operations.get(name);
      if (existing) {
        existing.soapActions.add(method.soapAction);
        continue;
      }
      operations.set(name, {
        soapActions: new Set([method.soapAction]),
        requestElement,
        responseElement,
        targetNamespace: method.input.$targetNamespace ?? definitions.$targetNamespace,
        parameters: Object.entries(input[requestElement] ?? {}).map(([param, type]) => ({
          name: param,
          type: String(type as string),
        })),
        output: output[responseElement] ?? {},
      });
    }
  }
  const serviceName = Object.keys(definitions.services)[0] ?? '';
  const ports = Object.keys(definitions.services[serviceName]?.ports ?? {});
  return { serviceName, bindings, ports, operations };
}

/** `string` or `char` (a .NET System.Char: `s1:char`, an unsignedShort); anything else is not part of this contract. */
export function wsdlParameterType(type: string): string {
  if (type === 's:string') return 'string';
  if (type === 'char|s:unsignedShort') return 'char';
  return `unsupported(${type})`;
}

/** A result shape node-soap describes, read as one of the contract's result types (null: a shape this contract does not use). */
export type WsdlResult =
  | { readonly type: 'void' }
  | { readonly type: 'string' }
  | { readonly type: 'ArrayOfStudentInfo'; readonly fields: readonly string[] };

export function wsdlResult(operation: string, output: Record<string, unknown>): WsdlResult | null {
  const keys = Object.keys(output);
  if (keys.length === 0) return { type: 'void' };
  if (keys.length !== 1 || keys[0] !== `${operation}Result`) return null;
  const result = output[keys[0]];
  if (result === 's:string') return { type: 'string' };
  if (typeof result !== 'object' || result === null) return null;
  const items = (result as Record<string, unknown>)['StudentInfo[]'];
  if (typeof items !== 'object' || items === null) return null;
  const fields = Object.entries(items as Record<string, unknown>).filter(
    ([name]) => name !== 'targetNSAlias' && name !== 'targetNamespace',
  );
  // Every field of StudentInfo is an optional string (minOccurs=0).
  if (fields.some(([, type]) => type !== 's:string')) return null;
  return { type: 'ArrayOfStudentInfo', fields: fields.map(([name]) => name) };
}
