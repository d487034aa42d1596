// One module per result type of the contract; a result type without one does not compile.
import type { ResultType } from '../../contract';
import type { ResultTypeModule } from './result-type';
import { STRING_RESULT } from './string-result';
import { STUDENT_INFO_LIST_RESULT } from './student-info-list-result';
import { VOID_RESULT } from './void-result';

export const RESULT_TYPES: { readonly [T in ResultType]: ResultTypeModule<T> } = {
  void: VOID_RESULT,
  string: STRING_RESULT,
  ArrayOfStudentInfo: STUDENT_INFO_LIST_RESULT,
};

export { answerText, type Chunks } from './chunks';
export type { HttpValueWriter, ResultTypeModule, SoapValueWriter } from './result-type';
