// What every command shares about its command line (docs/operating.md#commands):
// `--help` or `-h` prints the usage on stdout and exits 0, and relative paths
// resolve against the folder the command was run from.
import path from 'node:path';
import { SERVICE_VERSION } from '../shared/version';

/** Whether the arguments ask for the release's version (`--version`, anywhere). */
export function wantsVersion(args: readonly string[]): boolean {
  return args.includes('--version');
}

/** Whether the arguments ask for the usage (`--help` or `-h`, anywhere). */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/**
 * What the command prints instead of running when asked (`--help` or `-h`
 * first, then `--version`): its usage, or the release's version line; null
 * when neither is asked and the command runs.
 */
export function helpOrVersion(args: readonly string[], usage: string): string | null {
  if (wantsHelp(args)) return usage;
  if (wantsVersion(args)) return `${SERVICE_VERSION}\n`;
  return null;
}

/**
 * Answers `--help` or `--version` (helpOrVersion) through `write`, stdout
 * unless told: true when it did, and the command has nothing more to do.
 */
export function answerHelpOrVersion(
  args: readonly string[],
  usage: string,
  write: (text: string) => void = (text) => process.stdout.write(text),
): boolean {
  const answer = helpOrVersion(args, usage);
  if (answer !== null) write(answer);
  return answer !== null;
}

/**
 * The folder the command was run from: `npm run` starts scripts in the
 * package folder and says where it was run in INIT_CWD; run directly with
 * node, the working directory.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const init = env.npm_lifecycle_event === undefined ? undefined : env.INIT_CWD;
  return init !== undefined && init !== '' ? init : cwd;
}

/** `file` as given on the command line, resolved against the folder the command was run from. */
export function fromInvocation(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  return path.resolve(invocationDir(env, cwd), file);
}

/**
 * Exits with the code `run` settles with; a failure is one line on stderr,
 * after `prefix`, and exit code 1. process.exit rather than exitCode: a
 * password prompt may still hold stdin open.
 */
/** A usage error: the command's usage written where errors go, and exit status 2. */
export function usageError(io: { err(line: string): void }, usage: string): number {
  io.err(usage);
  return 2;
}

export function exitWhenDone(run: Promise<number>, prefix: string): void {
  run.then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${prefix}${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
