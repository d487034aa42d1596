// Comparing this service with the legacy one (docs/migration.md): the
// comparison itself, the requests it sends, its reports; the service's
// shadow calls and request recording use the same pieces.
export { classifyRequest, type RequestClass } from './classify-request';
export {
  COMPARED_HEADERS,
  compareAnswers,
  type Comparison,
  type DifferenceKind,
  type Outcome,
} from './compare-answers';
export {
  bodyFields,
  parseRequestLines,
  replayableHeaders,
  requestLine,
  type Answer,
  type RecordedRequest,
} from './exchange';
export { NO_DATA, planRequests, type BindingName, type KnownData, type PlannedRequest } from './generate-requests';
export {
  IgnoreFileError,
  parseIgnoreRules,
  readIgnoreFile,
  type Difference,
  type IgnoreRule,
  type RequestScope,
} from './ignore-rules';
export { operationKind, WRITE_OPERATIONS, type OperationKind } from './operation-kinds';
export { htmlReport, jsonReport, summaryText } from './report';
export { hasUnexplained, runComparison, type CompareEntry, type CompareResult, type Servers } from './run-compare';
export {
  createSender,
  SendError,
  sendRequest,
  type OutgoingRequest,
  type Sender,
  type SendOptions,
} from './send-request';
export { readWsdlOperations, type DescribedEndpoint } from './wsdl-operations';
