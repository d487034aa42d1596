// Relative links between the help pages and to the endpoint's documents.
// Relative, so that they keep working behind a proxy that serves the service
// under another host or path; built from the contract's names, never from
// what the request said.

export const endpointHref = (endpoint: string): string => `${encodeURIComponent(endpoint)}.asmx`;
export const wsdlHref = (endpoint: string): string => `${endpointHref(endpoint)}?WSDL`;
export const discoHref = (endpoint: string): string => `${endpointHref(endpoint)}?disco`;
export const operationHref = (endpoint: string, operation: string): string =>
  `${endpointHref(endpoint)}?op=${encodeURIComponent(operation)}`;
/** Where the test form posts: the HTTP POST binding. */
export const invokeHref = (endpoint: string, operation: string): string =>
  `${endpointHref(endpoint)}/${encodeURIComponent(operation)}`;

/** .NET's StringComparer.Ordinal, the order ASMX lists operations in: UTF-16 code units. */
export function compareOrdinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
