export {
  ARGUMENT_READERS,
  DEFAULT_NAMESPACE,
  ENDPOINTS,
  soapActionFor,
  type EndpointName,
  type EndpointSpec,
  type OperationSpec,
  type ParameterSpec,
  type ParameterType,
  type ResultType,
  type ResultTypeOf,
  type ResultValues,
  type WireOperationName,
  type WireOperations,
} from './contract';
export {
  OPERATION_TRAITS,
  isContractOperation,
  operationTraits,
  operationsWhere,
  type AppJsonBody,
  type AppJsonOperation,
  type OperationSubject,
  type OperationTraits,
  type SeedingOperation,
  type SubjectKind,
} from './operation-traits';
export { STUDENT_INFO_FIELDS, type StudentInfo, type StudentInfoKey } from './student-info';
export {
  AUTHORED_ADDRESS_PREFIX,
  ContractMismatchError,
  WSDL_DIR,
  loadEndpointModel,
  loadServiceModel,
  readAuthoredWsdl,
  type EndpointModel,
  type OperationModel,
} from './wsdl-model';
export { parseWsdl, wsdlParameterType, type ParsedOperation, type ParsedWsdl } from './wsdl-reader';
