// GET and POST /X.asmx/Op: the HTTP GET and HTTP POST bindings (docs/design.md#http-get-and-post,
// rules 19-23). Only translates named pairs to a call and the result to
// XmlSerializer's bytes; errors are plain-text 500s as ASMX writes them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointModel, OperationModel, WireOperationName } from '../../contract';
import type { Dispatcher, Failed, Outcome, WireCall } from '../dispatch';
import { decodeBody, parseMediaType } from '../media-type';
import { safeDecode } from '../request-target';
import { CACHE_ERROR, CACHE_RESULT, send, sendAccessRefusal } from '../respond';
import type { Chunks } from '../results';
import { echoed } from '../../shared/echo';
import { escapeHtml } from '../../shared/markup';
import { readFormPairs, type FormPair } from './form-pairs';
import { createResultWriter } from './result-writer';
import { APP_JSON_CONTENT_TYPE, appJsonWriter } from './app-json';

const FORM = 'application/x-www-form-urlencoded';

export type HttpOperationHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  operationPath: string,
  rawQuery: string,
  body: Buffer | undefined,
  call: WireCall,
) => void | Promise<void>;

/** A call's answer: its body and content type (null: 200 with no body and no Content-Type). */
type HttpAnswer = { readonly ok: true; readonly contentType: string | null; readonly body: string | Chunks };

/** One operation of the endpoint, with its call and the writing of its answer. */
interface HttpOperation {
  readonly model: OperationModel;
  readonly call: (values: readonly string[], call: WireCall) => HttpAnswer | Failed | Promise<HttpAnswer | Failed>;
}

/** The call of one operation with its writers (its result type's, or the apps' JSON one): all typed by the operation, so its answer reaches them as it is. */
function httpOperation<K extends WireOperationName>(
  model: OperationModel<K>,
  namespace: string,
  dispatcher: Dispatcher,
  jsonBodies: boolean,
): HttpOperation {
  const json = jsonBodies ? appJsonWriter(model) : null;
  const xml = createResultWriter(model, namespace);
  const written = (outcome: Outcome<K>): HttpAnswer | Failed => {
    if (!outcome.ok) return outcome;
    if (json !== null) return { ok: true, contentType: APP_JSON_CONTENT_TYPE, body: json(outcome.value) };
    const text = xml(outcome.value);
    return text === null
      ? { ok: true, contentType: null, body: '' }
      : { ok: true, contentType: 'text/xml; charset=utf-8', body: text };
  };
  return {
    model,
    // At once when the operation answered at once (docs/benchmark.md#fourth-round).
    call(values, call) {
      const outcome = dispatcher.invoke(model, values, call);
      return outcome instanceof Promise ? outcome.then(written) : written(outcome);
    },
  };
}

/**
 * A failure before or during the call, answered as ASMX does: 500,
 * text/plain, CRLF, the messages of the exception chain each HTML-encoded
 * and joined by a ` ---> ` that is not (test/wire/http-rules.test.ts).
 */
function sendError(res: ServerResponse, chain: string | readonly string[], cache = CACHE_ERROR): void {
  const text = typeof chain === 'string' ? escapeHtml(chain) : chain.map(escapeHtml).join(' ---> ');
  send(res, 500, 'text/plain; charset=utf-8', `${text}\r\n`, cache);
}

export interface HttpBindingOptions {
  /** JSON_BODIES: answer the mobile apps' operations with their JSON arrays (app-json.ts). */
  readonly jsonBodies?: boolean;
}

export function createHttpOperationHandler(
  endpoint: EndpointModel,
  dispatcher: Dispatcher,
  options: HttpBindingOptions = {},
): HttpOperationHandler {
  const jsonBodies = options.jsonBodies === true;
  const operations = new Map<string, HttpOperation>(
    endpoint.operations.map((op) => [op.wireName, httpOperation(op, endpoint.namespace, dispatcher, jsonBodies)]),
  );

  /** The operation's answer, or why there is none, written as the call's answer. */
  const answer = (res: ServerResponse, call: WireCall, outcome: HttpAnswer | Failed): void => {
    if (!outcome.ok) {
      if (outcome.kind === 'forbidden' || outcome.kind === 'unauthorized') {
        sendAccessRefusal(res, outcome);
        return;
      }
      if (outcome.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(outcome.retryAfterSeconds));
      sendError(res, outcome.message, CACHE_RESULT);
      return;
    }
    send(res, 200, outcome.contentType, outcome.body, CACHE_RESULT, call.record.answerTap);
  };

  return (req, res, operationPath, rawQuery, body, call) => {
    const name = safeDecode(operationPath);
    if ((req.method !== 'GET' && req.method !== 'POST') || name === '') {
      sendError(res, `Request format is unrecognized for URL unexpectedly ending in '/${echoed(name)}'.`);
      return;
    }
    const found = operations.get(name);
    if (found === undefined) {
      sendError(res, unknownOperationMessage(name, endpoint));
      return;
    }
    const operation = found.model;
    // Noted as soon as it is known, so that a call refused before it ran still counts under it.
    call.record.operation = operation.wireName;

    let pairs: readonly FormPair[];
    if (req.method === 'GET') {
      pairs = readFormPairs(rawQuery);
    } else {
      const media = parseMediaType(req.headers['content-type']);
      const form = media.type === FORM ? decodeBody(body ?? Buffer.alloc(0), media) : null;
      if (form === null) {
        if (operation.parameters.length > 0) {
          sendError(res, `Request format is invalid: ${echoed(req.headers['content-type'] ?? '')}.`);
          return;
        }
        pairs = [];
      } else {
        pairs = readFormPairs(form);
      }
    }

    const values = readValues(operation, pairs);
    if (!Array.isArray(values)) {
      sendError(res, values.error);
      return;
    }
    const outcome = found.call(values, call);
    if (outcome instanceof Promise) return outcome.then((settled) => answer(res, call, settled));
    answer(res, call, outcome);
  };
}

/**
 * Parameter names match case-insensitively, repeated ones are joined with
 * `,`, extra ones are ignored. Returns the values in contract order, or the
 * error's exception chain. A scan of the few pairs for each of the few
 * parameters rather than a map of lists (docs/benchmark.md#fifth-round-http-get-and-post).
 */
function readValues(
  operation: OperationModel,
  pairs: readonly FormPair[],
): string[] | { readonly error: readonly string[] } {
  const keys = pairs.map(([key]) => key.toLowerCase());
  const values: string[] = [];
  for (const param of operation.parameters) {
    const name = param.wireName.toLowerCase();
    let value: string | undefined;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === name) value = value === undefined ? pairs[i][1] : `${value},${pairs[i][1]}`;
    }
    if (value === undefined) return { error: [`Missing parameter: ${param.wireName}.`] };
    if (param.type === 'char' && value.length !== 1) {
      return {
        error: [
          `Cannot convert ${echoed(value)} to System.Char.\r\nParameter name: type`,
          'String must be exactly one character long.',
        ],
      };
    }
    values.push(value);
  }
  return values;
}

function unknownOperationMessage(sent: string, endpoint: EndpointModel): string {
  const name = echoed(sent);
  const other = endpoint.operations.find((op) => op.wireName.toLowerCase() === sent.toLowerCase());
  if (other === undefined) return `${name} Web Service method name is not valid.`;
  return (
    `Invalid method name '${name}',  method names are case sensitive.   ` +
    `The method name '${other.wireName}' with the same name but different casing was found.\r\nParameter name: methodName`
  );
}
