// The bodies of the HTTP GET and POST bindings, as XmlSerializer writes them:
// an XML declaration, CRLF, the root in the service namespace, 2-space
// indentation with CRLF, no trailing newline (each result type's own module
// in src/wire/results writes its root and value).
import type { OperationModel } from '../../contract';
import { RESULT_TYPES, type HttpValueWriter } from '../results';
import { escapeAttribute } from '../xml-text';

/** Returns the body, or null for a void operation (200 with no body and no Content-Type). */
export type ResultWriter = HttpValueWriter;

export function createResultWriter(operation: OperationModel, namespace: string): ResultWriter {
  return RESULT_TYPES[operation.result].httpWriter(`xmlns="${escapeAttribute(namespace)}"`);
}
