// void: the SOAP response element is empty, and HTTP GET/POST answer 200
// with no body and no Content-Type.
import type { ResultTypeModule } from './result-type';

export const VOID_RESULT: ResultTypeModule<'void'> = {
  type: 'void',
  httpRoot: null,
  soapWriter({ open }) {
    const empty = `${open} />`;
    return (head, _value, tail) => head + empty + tail;
  },
  httpWriter: () => () => null,
  sampleValue: () => null,
};
