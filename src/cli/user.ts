// npm run user -- add NAME [--policy FILE] | remove NAME [--policy FILE]
// Writes or removes a Basic user's bcrypt hash under `users` in the access
// policy file (docs/security.md), keeping the rest of the file as it is:
// YAML through the yaml package's Document API, which keeps comments and
// order; JSON rewritten with two-space indentation. The result must still be
// a valid policy, or nothing is written. The running service reads it on
// SIGHUP.
import './node-guard';
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { parseDocument } from 'yaml';
import { PolicyError, USER_NAME, parsePolicy } from '../access';
import { answerHelpOrVersion, exitWhenDone, fromInvocation, usageError } from './args';
import { readPassword } from './password-prompt';

const USAGE = `usage: npm run user -- add NAME [--policy FILE]     (asks the password; reads it from stdin when not a terminal)
       npm run user -- remove NAME [--policy FILE]
FILE defaults to ACCESS_POLICY; a relative FILE is taken from the folder the command was run from.`;

/** bcrypt's cost: about 0.1 s of CPU a check, paid once a minute per client thanks to the service's cache. */
export const BCRYPT_COST = 10;

export interface UserCliIo {
  readonly env: NodeJS.ProcessEnv;
  /** The working directory, for a relative --policy FILE when not run through npm (src/cli/args.ts). */
  readonly cwd?: string;
  /** Reads the password: hidden from a terminal, one line from anything else. */
  readPassword(prompt: string): Promise<string>;
  out(line: string): void;
  err(line: string): void;
}

export async function runUserCli(args: readonly string[], io: UserCliIo): Promise<number> {
  // Written a line at a time: the line's newline is the writer's.
  if (answerHelpOrVersion(args, USAGE, (text) => io.out(text.replace(/\n$/, '')))) return 0;
  const [command, name, ...rest] = args;
  let file = io.env.ACCESS_POLICY?.trim() || undefined;
  if (rest.length === 2 && rest[0] === '--policy') file = fromInvocation(rest[1], io.env, io.cwd ?? process.cwd());
  else if (rest.length !== 0) return usage(io);
  if ((command !== 'add' && command !== 'remove') || name === undefined) return usage(io);
  if (file === undefined) {
    io.err('No policy file: pass --policy FILE or set ACCESS_POLICY.');
    return 2;
  }
  if (!USER_NAME.test(name)) {
    io.err('A user name has no colon or spaces and at most 64 characters.');
    return 2;
  }

  const exists = existsSync(file);
  if (!exists && command === 'remove') {
    io.err(`${file} does not exist.`);
    return 1;
  }
  const text = exists ? readFileSync(file, 'utf8') : '';
  const json = file.toLowerCase().endsWith('.json');
  const edit = json ? jsonEditor(text) : yamlEditor(text);
  if (edit === null) {
    io.err(`${file} cannot be read as ${json ? 'JSON' : 'YAML'}; fix it first.`);
    return 1;
  }

  let verb: string;
  if (command === 'add') {
    const password = await io.readPassword(`Password for ${name}: `);
    if (password.length < 8) {
      io.err('The password must have at least 8 characters; nothing was written.');
      return 1;
    }
    verb = edit.has(name) ? 'updated' : 'added';
    edit.set(name, await bcrypt.hash(password, BCRYPT_COST));
  } else {
    if (!edit.has(name)) {
      io.err(`There is no user ${name} in ${file}.`);
      return 1;
    }
    edit.remove(name);
    verb = 'removed';
  }

  const next = edit.text();
  try {
    parsePolicy(next, file, { failClosed: false });
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    io.err(`Nothing was written: the policy would not be valid afterwards.\n${err.message}`);
    return 1;
  }
  writeAtomically(file, next);
  io.out(
    `User ${name} ${verb} in ${file}${exists ? '' : ' (new file)'}. Send SIGHUP to the service (or restart it) to apply it.`,
  );
  // A policy being written (users first, rules next) may not be one the service accepts yet: say so now, not at its start.
  try {
    parsePolicy(next, file);
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    io.err(`Note: the service will refuse this policy until it is finished:\n${err.message}`);
  }
  return 0;
}

interface UsersEditor {
  has(name: string): boolean;
  set(name: string, hash: string): void;
  remove(name: string): void;
  text(): string;
}

function yamlEditor(text: string): UsersEditor | null {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return null;
  return {
    has: (name) => doc.hasIn(['users', name]),
    set: (name, hash) => {
      // An empty `users:` is a null scalar that setIn cannot descend into.
      if (doc.get('users') == null) doc.set('users', doc.createNode({}));
      doc.setIn(['users', name], hash);
    },
    remove: (name) => void doc.deleteIn(['users', name]),
    text: () => doc.toString(),
  };
}

function jsonEditor(text: string): UsersEditor | null {
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    data = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const users = (): Record<string, string> => {
    if (typeof data.users !== 'object' || data.users === null) data.users = {};
    return data.users as Record<string, string>;
  };
  return {
    has: (name) => Object.hasOwn(users(), name),
    set: (name, hash) => void (users()[name] = hash),
    remove: (name) => void delete users()[name],
    text: () => `${JSON.stringify(data, null, 2)}\n`,
  };
}

/** Written beside the file and renamed over it: the service never reads half a file; the file's mode is kept. */
function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  writeFileSync(temporary, text, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, file);
}

const usage = (io: UserCliIo): number => usageError(io, USAGE);

if (require.main === module) {
  exitWhenDone(
    runUserCli(process.argv.slice(2), {
      env: process.env,
      readPassword,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    }),
    'npm run user failed: ',
  );
}
