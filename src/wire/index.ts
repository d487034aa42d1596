export { createAsmxCalls, createAsmxDocuments, type AsmxCallOptions, type AsmxDocumentOptions } from './asmx-routes';
export { createDispatcher, type Dispatcher, type Outcome } from './dispatch';
export { NOSNIFF, sendText } from './respond';
export { DEFAULT_MAX_XML_DEPTH } from './soap/envelope-reader';
export { callRecordOf, requestBodyOf, type Binding, type CallOutcome, type CallRecord } from './call-record';
export { QUERY_STRING_TOO_LONG, queryStringTooLong } from './query-length';
