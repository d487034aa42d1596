// Chooses the operation of a SOAP request as ASMX does (docs/design.md#soap-requests, rules
// 11-13) and reads its parameters from the body element's children.
import type { EndpointModel, OperationModel } from '../../contract';
import type { ChildElement, SoapRequest } from './envelope-reader';
import { echoed } from '../../shared/echo';
import { clientFault, type SoapFault } from './fault';
import type { SoapVersion } from './version';

export interface RoutingInput {
  /** The SOAPAction header, undefined when absent. */
  readonly soapActionHeader: string | undefined;
  /** The `action` parameter of Content-Type, undefined when absent. */
  readonly actionParameter: string | undefined;
}

export type Routed = { readonly operation: OperationModel } | { readonly fault: SoapFault };

export interface SoapRouter {
  route(request: SoapRequest, input: RoutingInput): Routed;
  /**
   * The operation that the headers alone name, as `route` would choose it,
   * before the body is read (`declared`: the version the Content-Type says);
   * undefined when only the body element can tell.
   */
  byHeaders(declared: SoapVersion, input: RoutingInput): OperationModel | undefined;
  /** The operation whose request element this is, in the endpoint's namespace. */
  byElement(namespace: string, localName: string): OperationModel | undefined;
}

export function createSoapRouter(endpoint: EndpointModel): SoapRouter {
  const byAction = new Map(endpoint.operations.map((op) => [op.soapAction, op]));
  const byElement = new Map(endpoint.operations.map((op) => [op.requestElement, op]));

  const byBodyElement = (request: SoapRequest): OperationModel | undefined => {
    const element = request.bodyElement;
    if (element === null || element.namespace !== endpoint.namespace) return undefined;
    return byElement.get(element.localName);
  };

  return {
    byHeaders(declared, input) {
      if (input.soapActionHeader !== undefined && declared === '1.1')
        return byAction.get(decodeAction(stripQuotes(input.soapActionHeader)));
      if (input.actionParameter === undefined) return undefined;
      return byAction.get(decodeAction(stripQuotes(input.actionParameter.trim())));
    },
    byElement(namespace, localName) {
      return namespace === endpoint.namespace ? byElement.get(localName) : undefined;
    },
    route(request, input) {
      // SOAP 1.1 with a SOAPAction header: the header alone decides; the body element is not checked.
      if (input.soapActionHeader !== undefined && request.version === '1.1') {
        const action = decodeAction(stripQuotes(input.soapActionHeader));
        const operation = byAction.get(action);
        if (operation) return { operation };
        return {
          fault: clientFault(`Server did not recognize the value of HTTP Header SOAPAction: ${echoed(action)}.`),
        };
      }
      // SOAP 1.2, or SOAP 1.1 without SOAPAction: the action parameter, else the body element.
      const action =
        input.actionParameter === undefined ? undefined : decodeAction(stripQuotes(input.actionParameter.trim()));
      const operation = (action !== undefined ? byAction.get(action) : undefined) ?? byBodyElement(request);
      if (operation) return { operation };
      if (action !== undefined && action !== '') {
        return { fault: clientFault(`Unable to handle request. The action '${echoed(action)}' was not recognized.`) };
      }
      return {
        fault: clientFault(
          'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
        ),
      };
    },
  };
}

function stripQuotes(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/** HttpUtility.UrlDecode: `+` is a space; a malformed escape stays as it was. */
function decodeAction(value: string): string {
  if (!value.includes('%') && !value.includes('+')) return value;
  const spaced = value.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/**
 * The parameters in contract order. They are read only from the operation's
 * own element, its name and namespace matched exactly: under any other body
 * element (another operation's, or this one's in another letter case) every
 * parameter is missing, as XmlSerializer reads it. Only children in the
 * service namespace count (others are ignored), the first of duplicates
 * wins, a missing string is null, and a `char` travels as its UTF-16 code.
 */
export function readParameters(
  operation: OperationModel,
  namespace: string,
  request: Pick<SoapRequest, 'bodyElement' | 'children'>,
): (string | null)[] | SoapFault {
  const element = request.bodyElement;
  const own = element !== null && element.localName === operation.requestElement && element.namespace === namespace;
  const children: readonly ChildElement[] = own ? request.children : [];
  const values: (string | null)[] = [];
  for (const param of operation.parameters) {
    const child = children.find((c) => c.localName === param.wireName && c.namespace === namespace);
    if (param.type === 'string') {
      values.push(child === undefined || child.nil ? null : child.text);
      continue;
    }
    if (child === undefined || child.nil) {
      values.push('\u0000');
      continue;
    }
    const decoded = decodeChar(child.text);
    if (typeof decoded !== 'string') {
      return clientFault(
        `Server was unable to read request. ---> There is an error in XML document (${child.line}, ${child.column}). ---> ${decoded.reason}`,
      );
    }
    values.push(decoded);
  }
  return values;
}

function decodeChar(text: string): string | { reason: string } {
  const trimmed = text.trim();
  if (!/^[0-9]+$/.test(trimmed)) return { reason: 'Input string was not in a correct format.' };
  const code = Number(trimmed);
  if (code > 0xffff) return { reason: 'Value was either too large or too small for a UInt16.' };
  return String.fromCharCode(code);
}
