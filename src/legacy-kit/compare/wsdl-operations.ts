// The operations a server's `?wsdl` describes, read from the document it
// serves (not from our own wsdl/ files): the target namespace, and per
// operation its SOAP action and its parameters in order, with their types.
import { parseXml, type XmlElement } from './xml-compare';

const WSDL = 'http://schemas.xmlsoap.org/wsdl/';
const SCHEMA = 'http://www.w3.org/2001/XMLSchema';
const SOAP = 'http://schemas.xmlsoap.org/wsdl/soap/';

export interface DescribedParameter {
  readonly name: string;
  /** The schema type's local name: `string`, `char`. */
  readonly type: string;
}

export interface DescribedOperation {
  readonly name: string;
  readonly soapAction: string;
  readonly parameters: readonly DescribedParameter[];
}

export interface DescribedEndpoint {
  readonly name: string;
  readonly namespace: string;
  readonly operations: readonly DescribedOperation[];
}

/** The endpoint a WSDL describes; throws when the text is not a WSDL this can read. */
export function readWsdlOperations(endpoint: string, text: string): DescribedEndpoint {
  const root = parseXml(text);
  if (root === null || root.uri !== WSDL || root.local !== 'definitions')
    throw new Error(`${endpoint}?wsdl is not a WSDL document.`);
  const namespace = root.attributes.get('{}targetNamespace') ?? '';
  const schemaElements = new Map<string, XmlElement>();
  for (const schema of descendants(root, SCHEMA, 'schema')) {
    if ((schema.attributes.get('{}targetNamespace') ?? '') !== namespace) continue;
    for (const element of childElements(schema, SCHEMA, 'element')) {
      const name = element.attributes.get('{}name');
      if (name !== undefined) schemaElements.set(name, element);
    }
  }
  const actions = new Map<string, string>();
  for (const binding of childElements(root, WSDL, 'binding')) {
    for (const operation of childElements(binding, WSDL, 'operation')) {
      const soapOperation = childElements(operation, SOAP, 'operation')[0];
      const action = soapOperation?.attributes.get('{}soapAction');
      const name = operation.attributes.get('{}name');
      if (name !== undefined && action !== undefined && !actions.has(name)) actions.set(name, action);
    }
  }
  const operations: DescribedOperation[] = [];
  const portType = childElements(root, WSDL, 'portType').find((p) => p.attributes.get('{}name') === `${endpoint}Soap`);
  for (const operation of portType === undefined ? [] : childElements(portType, WSDL, 'operation')) {
    const name = operation.attributes.get('{}name');
    if (name === undefined) continue;
    const element = schemaElements.get(name);
    const parameters = (element === undefined ? [] : descendants(element, SCHEMA, 'element')).map((parameter) => ({
      name: parameter.attributes.get('{}name') ?? '',
      type: (parameter.attributes.get('{}type') ?? 'string').replace(/^.*:/, ''),
    }));
    operations.push({ name, soapAction: actions.get(name) ?? '', parameters });
  }
  if (operations.length === 0)
    throw new Error(`${endpoint}?wsdl describes no operation of the port type ${endpoint}Soap.`);
  return { name: endpoint, namespace, operations };
}

function childElements(parent: XmlElement, uri: string, local: string): XmlElement[] {
  return parent.children.filter(
    (child): child is XmlElement => typeof child !== 'string' && child.uri === uri && child.local === local,
  );
}

function descendants(parent: XmlElement, uri: string, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const child of parent.children) {
    if (typeof child === 'string') continue;
    if (child.uri === uri && child.local === local) found.push(child);
    else found.push(...descendants(child, uri, local));
  }
  return found;
}
