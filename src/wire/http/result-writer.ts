// The bodies of the HTTP GET and POST bindings, as XmlSerializer writes them:
// an XML declaration, CRLF, the root in the service namespace, 2-space
// indentation with CRLF, no trailing newline (each result type's own module
// in src/wire/results writes its root and value).
import type { OperationModel, ResultTypeOf, WireOperationName } from '../../contract';
import { RESULT_TYPES, type HttpValueWriter } from '../results';
import { escapeAttribute } from '../../shared/markup';

/** Returns the body, or null for a void operation (200 with no body and no Content-Type); it takes what operation `K` answers. */
export type ResultWriter<K extends WireOperationName> = HttpValueWriter<ResultTypeOf[K]>;

/** The writer of the operation's result type, found in the registry keyed by result type. */
export function createResultWriter<K extends WireOperationName>(
  operation: OperationModel<K>,
  namespace: string,
): ResultWriter<K> {
  return RESULT_TYPES[operation.result].httpWriter(`xmlns="${escapeAttribute(namespace)}"`);
}
