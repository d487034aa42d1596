// node-soap reads our hand-authored WSDLs and gives the operation table:
// SOAP actions, request and response element names, parameter order and
// types, result shapes. We check that table against the contract module at
// start-up, so a WSDL and the contract cannot drift apart, and hand the
// bindings a plain frozen model. node-soap's types are loose: everything
// untyped stays inside this file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WSDL } from 'soap';
import {
  DEFAULT_NAMESPACE,
  ENDPOINTS,
  STUDENT_INFO_FIELDS,
  soapActionFor,
  type EndpointSpec,
  type OperationSpec,
  type ParameterSpec,
  type ResultType,
} from './contract';

export const WSDL_DIR = path.resolve(__dirname, '..', '..', 'wsdl');

export interface OperationModel {
  readonly spec: OperationSpec;
  readonly wireName: string;
  readonly soapAction: string;
  readonly requestElement: string;
  readonly responseElement: string;
  /** `OpResult`, the element holding the result in SOAP (null when void). */
  readonly resultElement: string | null;
  readonly parameters: readonly ParameterSpec[];
  readonly result: ResultType;
}

export interface EndpointModel {
  readonly name: string;
  readonly namespace: string;
  /** The WSDL text with our namespace applied; addresses still hold the authored placeholder. */
  readonly wsdl: string;
  readonly operations: readonly OperationModel[];
}

export class ContractMismatchError extends Error {
  override readonly name = 'ContractMismatchError';
}

/** The placeholder address every authored WSDL carries; replaced by the address the client used. */
export const AUTHORED_ADDRESS_PREFIX = 'http://localhost/';

/**
 * The WSDL files are authored in ASMX's default namespace. Another namespace
 * (SOAP_NAMESPACE) is applied to the three places that carry it: the target
 * namespace, the `tns` prefix and each SOAP action.
 */
export function applyNamespace(wsdl: string, namespace: string): string {
  if (namespace === DEFAULT_NAMESPACE) return wsdl;
  const ns = escapeAttribute(namespace);
  return wsdl
    .replaceAll(`targetNamespace="${DEFAULT_NAMESPACE}"`, `targetNamespace="${ns}"`)
    .replaceAll(`xmlns:tns="${DEFAULT_NAMESPACE}"`, `xmlns:tns="${ns}"`)
    .replace(/soapAction="http:\/\/tempuri\.org\/([^"]*)"/g, (_m, op: string) => `soapAction="${escapeAttribute(soapActionFor(namespace, op))}"`);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

export function readAuthoredWsdl(endpoint: string): string {
  return readFileSync(path.join(WSDL_DIR, `${endpoint}.wsdl`), 'utf8');
}

export async function loadEndpointModel(spec: EndpointSpec, namespace: string, authored = readAuthoredWsdl(spec.name)): Promise<EndpointModel> {
  const wsdl = applyNamespace(authored, namespace);
  const parsed = await parseWsdl(wsdl, spec.name);
  const operations = spec.operations.map((op) => checkOperation(spec.name, op, namespace, parsed));
  const extra = [...parsed.operations.keys()].filter((name) => !spec.operations.some((op) => op.wireName === name));
  if (extra.length > 0) {
    throw new ContractMismatchError(`${spec.name}.wsdl has operations the contract does not: ${extra.join(', ')}`);
  }
  const order = [...parsed.operations.keys()];
  if (order.join() !== spec.operations.map((op) => op.wireName).join()) {
    throw new ContractMismatchError(`${spec.name}.wsdl declares its operations in the order ${order.join(', ')}`);
  }
  return Object.freeze({ name: spec.name, namespace, wsdl, operations: Object.freeze(operations) });
}

export async function loadServiceModel(namespace: string): Promise<readonly EndpointModel[]> {
  return Promise.all(ENDPOINTS.map((endpoint) => loadEndpointModel(endpoint, namespace)));
}

interface ParsedOperation {
  soapActions: Set<string>;
  requestElement: string;
  responseElement: string;
  targetNamespace: string;
  parameters: { name: string; type: string }[];
  output: Record<string, unknown>;
}

interface ParsedWsdl {
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

function parseWsdl(xml: string, endpoint: string): Promise<ParsedWsdl> {
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
        parameters: Object.entries(input[requestElement] ?? {}).map(([param, type]) => ({ name: param, type: String(type as string) })),
        output: output[responseElement] ?? {},
      });
    }
  }
  const serviceName = Object.keys(definitions.services)[0] ?? '';
  const ports = Object.keys(definitions.services[serviceName]?.ports ?? {});
  return { serviceName, bindings, ports, operations };
}

function checkOperation(endpoint: string, spec: OperationSpec, namespace: string, parsed: ParsedWsdl): OperationModel {
  const where = `${endpoint}.wsdl, operation ${spec.wireName}`;
  const fail = (what: string): never => {
    throw new ContractMismatchError(`${where}: ${what}`);
  };
  if (parsed.serviceName !== endpoint) fail(`service is named ${parsed.serviceName}`);
  const expectedBindings = [`${endpoint}Soap`, `${endpoint}Soap12`];
  if (parsed.bindings.join() !== expectedBindings.join()) fail(`SOAP bindings are ${parsed.bindings.join(', ')}`);
  if (parsed.ports.join() !== expectedBindings.join()) fail(`SOAP ports are ${parsed.ports.join(', ')}`);

  const op = parsed.operations.get(spec.wireName) ?? fail('missing from the WSDL');
  const soapAction = soapActionFor(namespace, spec.wireName);
  if (op.soapActions.size !== 1 || !op.soapActions.has(soapAction)) fail(`soapAction is ${[...op.soapActions].join(', ')}, expected ${soapAction}`);
  if (op.requestElement !== spec.wireName) fail(`request element is ${op.requestElement}`);
  if (op.responseElement !== `${spec.wireName}Response`) fail(`response element is ${op.responseElement}`);
  if (op.targetNamespace !== namespace) fail(`namespace is ${op.targetNamespace}`);

  const params = op.parameters.map((p) => `${p.name}:${wsdlParameterType(p.type)}`).join();
  const expected = spec.parameters.map((p) => `${p.wireName}:${p.type}`).join();
  if (params !== expected) fail(`parameters are (${params}), the contract says (${expected})`);

  const result = wsdlResultType(spec.wireName, op.output) ?? fail(`result shape ${JSON.stringify(op.output)} is not known`);
  if (result !== spec.result) fail(`result is ${result}, the contract says ${spec.result}`);

  return Object.freeze({
    spec,
    wireName: spec.wireName,
    soapAction,
    requestElement: op.requestElement,
    responseElement: op.responseElement,
    resultElement: result === 'void' ? null : `${spec.wireName}Result`,
    parameters: spec.parameters,
    result,
  });
}

function wsdlParameterType(type: string): string {
  if (type === 's:string') return 'string';
  if (type === 'char|s:unsignedShort') return 'char';
  return `unsupported(${type})`;
}

function wsdlResultType(operation: string, output: Record<string, unknown>): ResultType | null {
  const keys = Object.keys(output);
  if (keys.length === 0) return 'void';
  if (keys.length !== 1 || keys[0] !== `${operation}Result`) return null;
  const result = output[keys[0]];
  if (result === 's:string') return 'string';
  if (typeof result !== 'object' || result === null) return null;
  const items = (result as Record<string, unknown>)['StudentInfo[]'];
  if (typeof items !== 'object' || items === null) return null;
  const fields = Object.entries(items as Record<string, unknown>)
    .filter(([name]) => name !== 'targetNSAlias' && name !== 'targetNamespace')
    .map(([name, type]) => `${name}:${String(type)}`)
    .join();
  const expected = STUDENT_INFO_FIELDS.map((field) => `${field.wireName}:s:string`).join();
  return fields === expected ? 'ArrayOfStudentInfo' : null;
}
