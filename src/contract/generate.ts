// Writes the TypeScript form of the contract from the authored WSDL files
// (`npm run contract`, docs/design.md#the-contract): the endpoints, their
// operations in WSDL order, each parameter's wire name and type, each
// result type, StudentInfo's fields, and one argument interface and one
// result type per operation. The WSDL files stay the source: they are what
// clients were generated from. test/contract/generated.test.ts fails when the
// committed file no longer matches them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseWsdl, WSDL_DIR, wsdlParameterType, wsdlResult, type ParsedWsdl } from './wsdl-reader';

export const GENERATED_FILE = path.resolve(__dirname, '..', '..', 'src', 'contract', 'generated.ts');

interface GeneratedOperation {
  readonly name: string;
  readonly parameters: readonly { readonly wireName: string; readonly type: string }[];
  readonly result: string;
}

interface GeneratedEndpoint {
  readonly name: string;
  readonly operations: readonly GeneratedOperation[];
}

export class ContractSourceError extends Error {
  override readonly name = 'ContractSourceError';
}

/** The text of src/contract/generated.ts for the WSDL files in `dir`. */
export async function renderContract(dir = WSDL_DIR): Promise<string> {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.wsdl'))
    .sort();
  const endpoints: GeneratedEndpoint[] = [];
  let studentInfo: readonly string[] | null = null;
  for (const file of files) {
    const name = file.slice(0, -'.wsdl'.length);
    const parsed = await parseWsdl(readFileSync(path.join(dir, file), 'utf8'), name);
    const operations: GeneratedOperation[] = [];
    for (const [operation, op] of parsed.operations) {
      const where = `${file}, operation ${operation}`;
      const parameters = op.parameters.map((p) => {
        const type = wsdlParameterType(p.type);
        if (type.startsWith('unsupported'))
          throw new ContractSourceError(
            `${where}: parameter ${p.name} has the type ${p.type}, which the contract does not use`,
          );
        return { wireName: p.name, type };
      });
      const result =
        wsdlResult(operation, op.output) ?? fail(`${where}: result shape ${JSON.stringify(op.output)} is not known`);
      if (result.type === 'ArrayOfStudentInfo') {
        if (studentInfo !== null && studentInfo.join() !== result.fields.join())
          fail(`${where}: StudentInfo has other fields than in another WSDL`);
        studentInfo = result.fields;
      }
      operations.push({ name: operation, parameters, result: result.type });
    }
    checkServiceName(file, name, parsed);
    endpoints.push({ name, operations });
  }
  return render(endpoints, studentInfo ?? []);
}

function fail(message: string): never {
  throw new ContractSourceError(message);
}

function checkServiceName(file: string, name: string, parsed: ParsedWsdl): void {
  if (parsed.serviceName !== name) fail(`${file}: the service is named ${parsed.serviceName}, not after its file`);
}

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const ident = (text: string) => (/^[A-Za-z_$][\w$]*$/.test(text) ? text : quote(text));
const TS_RESULT: Readonly<Record<string, string>> = {
  void: 'void',
  string: 'string | null',
  ArrayOfStudentInfo: 'StudentInfo[]',
};

function render(endpoints: readonly GeneratedEndpoint[], studentInfo: readonly string[]): string {
  const lines: string[] = [
    '// Generated from wsdl/*.wsdl by `npm run contract` (src/contract/generate.ts): do not edit.',
    '// test/contract/generated.test.ts fails when this file no longer matches the WSDL files.',
    "import type { StudentInfo } from './student-info';",
    '',
    '/** Each endpoint (named after its WSDL file), its operations in WSDL order, their parameters in order and their result type. */',
    'export const WSDL_ENDPOINTS = {',
  ];
  for (const endpoint of endpoints) {
    lines.push(`  ${ident(endpoint.name)}: {`);
    for (const op of endpoint.operations) {
      lines.push(`    ${ident(op.name)}: {`);
      lines.push('      parameters: [');
      for (const p of op.parameters) lines.push(`        { wireName: ${quote(p.wireName)}, type: ${quote(p.type)} },`);
      lines.push('      ],');
      lines.push(`      result: ${quote(op.result)},`);
      lines.push('    },');
    }
    lines.push('  },');
  }
  lines.push('} as const;', '');
  lines.push('/** The fields of StudentInfo in schema order, each an optional string. */');
  lines.push(`export const STUDENT_INFO_WIRE_FIELDS = [${studentInfo.map(quote).join(', ')}] as const;`, '');
  const all = endpoints.flatMap((e) => e.operations);
  for (const op of all) {
    lines.push(`/** ${op.name}'s arguments by wire name, as the bindings read them: a value left out is null. */`);
    if (op.parameters.length === 0) lines.push(`export type ${op.name}Args = Record<never, never>;`);
    else {
      lines.push(`export interface ${op.name}Args {`);
      for (const p of op.parameters) lines.push(`  readonly ${ident(p.wireName)}: string | null;`);
      lines.push('}');
    }
    lines.push(`/** ${op.name}'s result (${op.result} on the wire). */`);
    lines.push(`export type ${op.name}Result = ${TS_RESULT[op.result]};`, '');
  }
  lines.push('/** Every operation: its arguments and its result. */');
  lines.push('export interface WireOperations {');
  for (const op of all)
    lines.push(`  ${ident(op.name)}: { readonly args: ${op.name}Args; readonly result: ${op.name}Result };`);
  lines.push('}', '');
  lines.push('export type WireOperationName = keyof WireOperations;', '');
  lines.push("/** Each operation's arguments from the values a binding read, in WSDL order. */");
  lines.push(
    "export const ARGUMENT_READERS: { readonly [K in WireOperationName]: (values: readonly (string | null)[]) => WireOperations[K]['args'] } = {",
  );
  for (const op of all) {
    const fields = op.parameters.map((p, i) => `${ident(p.wireName)}: values[${i}] ?? null`).join(', ');
    lines.push(
      `  ${ident(op.name)}: (${op.parameters.length === 0 ? '' : 'values'}) => ({${fields === '' ? '' : ` ${fields} `}}),`,
    );
  }
  lines.push('};', '');
  return lines.join('\n');
}
