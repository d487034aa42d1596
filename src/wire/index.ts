export { createAsmxCalls, createAsmxDocuments, type AsmxCallOptions, type AsmxDocumentOptions } from './asmx-routes';
export { createDispatcher, type Dispatcher, type Outcome } from './dispatch';
export { CACHE_RESULT, NOSNIFF, send, sendText } from './respond';
export { DEFAULT_MAX_XML_DEPTH } from './soap/envelope-reader';
export { callOf, CallRecord, startCall, type AnswerTap, type Binding, type CallOutcome } from './call-record';
export { QUERY_STRING_TOO_LONG, queryStringTooLong } from './query-length';
