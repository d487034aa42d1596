// The sample requests and responses of an operation's help page (docs/design.md#help-pages,
// rule 25), in ASMX's order: SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST.
// Requests are built from the operation model (the contract, checked against
// the WSDL); responses are what the service's own writers produce for sample
// values, indented. So a sample cannot disagree with what the service accepts
// and answers, and the tests replay every one of them.
// A sample is a list of tokens that keeps the placeholders apart from the
// literal text: the page marks them up, the tests fill them in.
import type { OperationModel, ResultTypeOf, ResultValues, WireOperationName } from '../../contract';
import { createResultWriter } from '../http/result-writer';
import { RESULT_TYPES, answerText } from '../results';
import { createResponseWriter } from '../soap/envelope-writer';
import { CONTENT_TYPE, ENVELOPE_NS, type SoapVersion } from '../soap/version';
import { escapeAttribute } from '../../shared/markup';
import { indentXml } from './xml-indent';

export type SampleToken =
  | { readonly kind: 'text'; readonly text: string }
  /** A parameter's name in a query string or form body. */
  | { readonly kind: 'key'; readonly name: string }
  /** Where a parameter's value goes; `word` is the placeholder shown, the XSD type name. */
  | { readonly kind: 'parameter'; readonly name: string; readonly word: string }
  /** Where a value of the result goes. */
  | { readonly kind: 'result'; readonly word: string }
  | { readonly kind: 'length' };

export type SampleText = readonly SampleToken[];

export type Binding = 'SOAP 1.1' | 'SOAP 1.2' | 'HTTP GET' | 'HTTP POST';

export interface Sample {
  readonly binding: Binding;
  readonly request: SampleText;
  readonly response: SampleText;
}

/** Where the samples send their requests: the Host and the endpoint's path the page was asked for with. */
export interface SampleTarget {
  readonly host: string;
  readonly path: string;
}

// The HTTP bindings' messages type every part s:string, the char too (docs/design.md#rule-7),
// and every value of a result is an s:string (rules 4 and 5).
const HTTP_PARAMETER_WORD = 'string';
const RESULT_WORD = 'string';
const HTTP_RESULT_CONTENT_TYPE = 'text/xml; charset=utf-8';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';
/** Stands for a placeholder inside XML text while it is written and indented; a private-use character no writer escapes. */
const SLOT = '\uE000';

const text = (value: string): SampleToken => ({ kind: 'text', text: value });
const LENGTH: SampleToken = { kind: 'length' };
const RESULT: SampleToken = { kind: 'result', word: RESULT_WORD };

export function operationSamples<K extends WireOperationName>(
  operation: OperationModel<K>,
  namespace: string,
  target: SampleTarget,
): readonly Sample[] {
  const sampleValue = resultSampleValue(operation);
  const soap = (version: SoapVersion, binding: Binding): Sample => ({
    binding,
    request: soapRequest(version, operation, namespace, target),
    response: [
      text(`HTTP/1.1 200 OK\nContent-Type: ${CONTENT_TYPE[version]}\nContent-Length: `),
      LENGTH,
      text('\n\n'),
      ...fillSlots(
        indentXml(answerText(createResponseWriter(operation, namespace).write(version, sampleValue))),
        () => RESULT,
      ),
    ],
  });
  const httpAnswer = createResultWriter(operation, namespace)(sampleValue);
  const httpBody = httpAnswer === null ? null : answerText(httpAnswer);
  const httpResponse: SampleText =
    httpBody === null
      ? [text('HTTP/1.1 200 OK')]
      : [
          text(`HTTP/1.1 200 OK\nContent-Type: ${HTTP_RESULT_CONTENT_TYPE}\nContent-Length: `),
          LENGTH,
          text('\n\n'),
          ...fillSlots(indentXml(httpBody), () => RESULT),
        ];
  const operationPath = `${target.path}/${operation.wireName}`;
  const pairs = formPairs(operation);

  return [
    soap('1.1', 'SOAP 1.1'),
    soap('1.2', 'SOAP 1.2'),
    {
      binding: 'HTTP GET',
      request: [
        text(`GET ${operationPath}${pairs.length > 0 ? '?' : ''}`),
        ...pairs,
        text(` HTTP/1.1\nHost: ${target.host}`),
      ],
      response: httpResponse,
    },
    {
      binding: 'HTTP POST',
      request: [
        text(
          `POST ${operationPath} HTTP/1.1\nHost: ${target.host}\nContent-Type: ${FORM_CONTENT_TYPE}\nContent-Length: `,
        ),
        LENGTH,
        text('\n\n'),
        ...pairs,
      ],
      response: httpResponse,
    },
  ];
}

/**
 * The request as ASMX's help page shows it: envelope prefix `soap12` for
 * SOAP 1.2, no `action` parameter (the service routes by the body element),
 * `SOAPAction` quoted for SOAP 1.1. The char travels as its UTF-16 code, but
 * its placeholder is its type name, `char`, as in the WSDL.
 */
function soapRequest(
  version: SoapVersion,
  operation: OperationModel,
  namespace: string,
  target: SampleTarget,
): SampleText {
  const prefix = version === '1.1' ? 'soap' : 'soap12';
  const parameters = operation.parameters.map((p) => `<${p.wireName}>${SLOT}</${p.wireName}>`).join('');
  const payload =
    parameters === ''
      ? `<${operation.requestElement} xmlns="${escapeAttribute(namespace)}" />`
      : `<${operation.requestElement} xmlns="${escapeAttribute(namespace)}">${parameters}</${operation.requestElement}>`;
  const envelope =
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<${prefix}:Envelope xmlns:xsi="${XSI}" xmlns:xsd="${XSD}" xmlns:${prefix}="${ENVELOPE_NS[version]}">` +
    `<${prefix}:Body>${payload}</${prefix}:Body></${prefix}:Envelope>`;
  const action = version === '1.1' ? `\nSOAPAction: "${operation.soapAction}"` : '';
  let next = 0;
  return [
    text(
      `POST ${target.path} HTTP/1.1\nHost: ${target.host}\nContent-Type: ${CONTENT_TYPE[version]}\nContent-Length: `,
    ),
    LENGTH,
    text(`${action}\n\n`),
    ...fillSlots(indentXml(envelope), () => {
      const parameter = operation.parameters[next++];
      return { kind: 'parameter', name: parameter.wireName, word: parameter.type };
    }),
  ];
}

/** `a=string&b=string`, for the GET query and the POST body. */
function formPairs(operation: OperationModel): SampleToken[] {
  return operation.parameters.flatMap((p, i): SampleToken[] => [
    ...(i === 0 ? [] : [text('&')]),
    { kind: 'key', name: p.wireName },
    text('='),
    { kind: 'parameter', name: p.wireName, word: HTTP_PARAMETER_WORD },
  ]);
}

/** A result whose every value is a slot: one string, or ASMX's two sample items of a list. */
function resultSampleValue<K extends WireOperationName>(operation: OperationModel<K>): ResultValues[ResultTypeOf[K]] {
  return RESULT_TYPES[operation.result].sampleValue(SLOT);
}

/** Splits written XML at its slots, each replaced by the next placeholder. */
function fillSlots(xml: string, placeholder: () => SampleToken): SampleToken[] {
  const tokens: SampleToken[] = [];
  xml.split(SLOT).forEach((piece, i) => {
    if (i > 0) tokens.push(placeholder());
    if (piece !== '') tokens.push(text(piece));
  });
  return tokens;
}
