// npm run operator -- add NAME --role viewer|operator|admin | remove NAME | list
//                     | set-role NAME ROLE | disable NAME | enable NAME
// The console's accounts (docs/console.md#accounts), in the store the server
// uses (DATABASE_URL, else DATA_DIR): a change is seen by every node at once,
// and every change ends the account's sessions.
import './node-guard';
import bcrypt from 'bcryptjs';
import { ACCOUNT_BCRYPT_COST, ACCOUNT_NAME, PASSWORD_MIN } from '../console';
import { CONSOLE_ROLES, type ConsoleRole, type ConsoleStore } from '../store';
import { answerHelpOrVersion, exitWhenDone, usageError } from './args';
import { readPassword } from './password-prompt';
import { storeFromConfig } from './store-from-config';

const USAGE = `usage: npm run operator -- add NAME --role viewer|operator|admin   (asks the password; reads it from stdin when not a terminal)
       npm run operator -- remove NAME
       npm run operator -- list
       npm run operator -- set-role NAME viewer|operator|admin
       npm run operator -- disable NAME
       npm run operator -- enable NAME
Roles: viewer reads; operator also resends, edits and imports; admin also manages accounts.
The store is the server's: DATABASE_URL, else DATA_DIR.`;

export interface OperatorCliIo {
  /** Opens the store the server uses; the command closes nothing it did not open. */
  openStore(): Promise<{ console: ConsoleStore; close(): Promise<void> }>;
  readPassword(prompt: string): Promise<string>;
  out(line: string): void;
  err(line: string): void;
}

const isRole = (value: string | undefined): value is ConsoleRole =>
  value !== undefined && (CONSOLE_ROLES as readonly string[]).includes(value);

export async function runOperatorCli(args: readonly string[], io: OperatorCliIo): Promise<number> {
  // Written a line at a time: the line's newline is the writer's.
  if (answerHelpOrVersion(args, USAGE, (text) => io.out(text.replace(/\n$/, '')))) return 0;
  const [command, name, ...rest] = args;
  const shapes: Readonly<Record<string, number>> = {
    add: 2,
    remove: 0,
    list: -1,
    'set-role': 1,
    disable: 0,
    enable: 0,
  };
  const extra = command === undefined ? undefined : shapes[command];
  if (extra === undefined) return usage(io);
  if (extra === -1 ? name !== undefined : name === undefined || rest.length !== extra) return usage(io);
  if (name !== undefined && !ACCOUNT_NAME.test(name)) {
    io.err('An account name has 1 to 64 letters, digits, dots, dashes or underscores.');
    return 2;
  }
  let role: ConsoleRole | null = null;
  if (command === 'add') {
    if (rest[0] !== '--role' || !isRole(rest[1])) return usage(io);
    role = rest[1];
  }
  if (command === 'set-role') {
    if (!isRole(rest[0])) return usage(io);
    role = rest[0];
  }

  // Asked before the store opens: a typing mistake costs no connection.
  let passwordHash: string | null = null;
  if (command === 'add') {
    const password = await io.readPassword(`Password for ${name}: `);
    if (password.length < PASSWORD_MIN) {
      io.err(`The password must have at least ${PASSWORD_MIN} characters; nothing was written.`);
      return 1;
    }
    passwordHash = await bcrypt.hash(password, ACCOUNT_BCRYPT_COST);
  }

  const store = await io.openStore();
  try {
    const accounts = store.console;
    const account = name ?? '';
    switch (command) {
      case 'list': {
        const all = await accounts.listAccounts();
        if (all.length === 0) io.out('No accounts: add one with npm run operator -- add NAME --role admin');
        for (const a of all) io.out(`${a.name}\t${a.role}${a.disabled ? '\tdisabled' : ''}\tchanged ${a.updatedAt}`);
        return 0;
      }
      case 'add': {
        const result = await accounts.writeAccount({
          name: account,
          passwordHash: passwordHash ?? '',
          role: role ?? 'viewer',
        });
        io.out(
          result === 'added'
            ? `Account ${account} added (${role ?? ''}).`
            : `Account ${account} existed: its password and role (${role ?? ''}) were replaced and its sessions ended.`,
        );
        return 0;
      }
      case 'remove':
        return report(
          io,
          await accounts.removeAccount(account),
          `Account ${account} removed; its sessions ended.`,
          account,
        );
      case 'set-role':
        return report(
          io,
          await accounts.changeAccount(account, { role: role ?? 'viewer' }),
          `Account ${account} is now ${role ?? ''}; its sessions ended.`,
          account,
        );
      default:
        return report(
          io,
          await accounts.changeAccount(account, { disabled: command === 'disable' }),
          `Account ${account} ${command === 'disable' ? 'disabled; its sessions ended' : 'enabled'}.`,
          account,
        );
    }
  } finally {
    await store.close();
  }
}

function report(io: OperatorCliIo, found: boolean, done: string, name: string): number {
  if (!found) {
    io.err(`There is no account ${name}.`);
    return 1;
  }
  io.out(done);
  return 0;
}

const usage = (io: OperatorCliIo): number => usageError(io, USAGE);

if (require.main === module) {
  exitWhenDone(
    runOperatorCli(process.argv.slice(2), {
      openStore: async () => {
        const store = await storeFromConfig();
        return { console: store.console, close: () => store.lifecycle.close() };
      },
      readPassword,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    }),
    'npm run operator failed: ',
  );
}
