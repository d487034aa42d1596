// What each result type of the contract knows of itself (one module per
// type, found through ./index.ts): how the SOAP bindings and the HTTP GET/POST
// bindings write a value of it, byte for byte as ASMX does, and the value its
// help-page samples show.
import type { ResultType, ResultValues } from '../../contract';
import type { Chunks } from './chunks';

/** The parts of one operation's SOAP answer that do not depend on the value. */
export interface SoapParts {
  /** `<XResponse xmlns="…"`, without the closing `>`. */
  readonly open: string;
  /** `</XResponse>`. */
  readonly close: string;
  /** `XResult`, the element holding the value (null for void). */
  readonly resultElement: string | null;
}

/** Writes the Body's content between `head` (up to and with `<soap:Body>`) and `tail`. */
export type SoapValueWriter<T extends ResultType> = (
  head: string,
  value: ResultValues[T],
  tail: string,
) => string | Chunks;

/** An HTTP GET/POST answer body, or null for no body (200 with no Content-Type). */
export type HttpValueWriter<T extends ResultType> = (value: ResultValues[T]) => string | Chunks | null;

/** The module of result type `T`, writing the values that type carries (ResultValues in src/contract). */
export interface ResultTypeModule<T extends ResultType> {
  /** Which result type this is: a module is the writer of its own type only (test/types/result-writers.ts). */
  readonly type: T;
  /** The root element of the HTTP GET/POST answer (null: there is no body). */
  readonly httpRoot: string | null;
  soapWriter(parts: SoapParts): SoapValueWriter<T>;
  /** `ns`: the `xmlns="…"` attribute of the service namespace. */
  httpWriter(ns: string): HttpValueWriter<T>;
  /** A value whose every text is `slot`, for the help pages' samples. */
  sampleValue(slot: string): ResultValues[T];
}

export const XML_DECLARATION_CRLF = '<?xml version="1.0" encoding="utf-8"?>\r\n';
export const XSD_XSI =
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
