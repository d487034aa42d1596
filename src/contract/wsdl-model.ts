// The model the bindings serve: each endpoint's WSDL, read through node-soap
// with the configured namespace applied (SOAP actions, request and response
// elements, parameters, result shapes) and checked at start-up against the
// contract generated from the same files, so that a WSDL edited without
// `npm run contract` is caught before a client sees it. The bindings get a
// plain frozen model.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { escapeAttribute } from '../shared/markup';
import {
  DEFAULT_NAMESPACE,
  ENDPOINTS,
  soapActionFor,
  type EndpointSpec,
  type OperationSpec,
  type ParameterSpec,
  type ResultTypeOf,
  type WireOperationName,
} from './contract';
import { STUDENT_INFO_FIELDS } from './student-info';
import { parseWsdl, WSDL_DIR, wsdlParameterType, wsdlResult, type ParsedWsdl } from './wsdl-reader';

export { WSDL_DIR } from './wsdl-reader';

/** One operation as the bindings serve it; `K` names it, so that its result type, and the writer of it, are its own. */
export interface OperationModel<K extends WireOperationName = WireOperationName> {
  readonly spec: OperationSpec<K>;
  readonly wireName: K;
  readonly soapAction: string;
  readonly requestElement: string;
  readonly responseElement: string;
  /** `OpResult`, the element holding the result in SOAP (null when void). */
  readonly resultElement: string | null;
  readonly parameters: readonly ParameterSpec[];
  readonly result: ResultTypeOf[K];
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
function applyNamespace(wsdl: string, namespace: string): string {
  if (namespace === DEFAULT_NAMESPACE) return wsdl;
  const ns = escapeAttribute(namespace);
  return wsdl
    .replaceAll(`targetNamespace="${DEFAULT_NAMESPACE}"`, `targetNamespace="${ns}"`)
    .replaceAll(`xmlns:tns="${DEFAULT_NAMESPACE}"`, `xmlns:tns="${ns}"`)
    .replace(
      /soapAction="http:\/\/tempuri\.org\/([^"]*)"/g,
      (_m, op: string) => `soapAction="${escapeAttribute(soapActionFor(namespace, op))}"`,
    );
}

export function readAuthoredWsdl(endpoint: string): string {
  return readFileSync(path.join(WSDL_DIR, `${endpoint}.wsdl`), 'utf8');
}

export async function loadEndpointModel(
  spec: EndpointSpec,
  namespace: string,
  authored = readAuthoredWsdl(spec.name),
): Promise<EndpointModel> {
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

function checkOperation<K extends WireOperationName>(
  endpoint: string,
  spec: OperationSpec<K>,
  namespace: string,
  parsed: ParsedWsdl,
): OperationModel<K> {
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
  if (op.soapActions.size !== 1 || !op.soapActions.has(soapAction))
    fail(`soapAction is ${[...op.soapActions].join(', ')}, expected ${soapAction}`);
  if (op.requestElement !== spec.wireName) fail(`request element is ${op.requestElement}`);
  if (op.responseElement !== `${spec.wireName}Response`) fail(`response element is ${op.responseElement}`);
  if (op.targetNamespace !== namespace) fail(`namespace is ${op.targetNamespace}`);

  const params = op.parameters.map((p) => `${p.name}:${wsdlParameterType(p.type)}`).join();
  const expected = spec.parameters.map((p) => `${p.wireName}:${p.type}`).join();
  if (params !== expected) fail(`parameters are (${params}), the contract says (${expected})`);

  const shape = wsdlResult(spec.wireName, op.output) ?? fail(`result shape ${JSON.stringify(op.output)} is not known`);
  const result = spec.result;
  if (shape.type !== result) fail(`result is ${shape.type}, the contract says ${result}`);
  if (
    shape.type === 'ArrayOfStudentInfo' &&
    shape.fields.join() !== STUDENT_INFO_FIELDS.map((field) => field.wireName).join()
  ) {
    fail(`StudentInfo's fields are ${shape.fields.join(', ')}`);
  }

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
