// podman, driven from the container suite (docs/testing.md#the-container-image):
// whether it can run here, commands run without blocking the event loop (the
// suite's fake webhook must answer while a container works), and every
// container and volume labelled so that one run cleans up what an earlier,
// interrupted run left.
import { execFile, spawnSync } from 'node:child_process';

/** Label on every container and volume the suite makes. */
export const SUITE_LABEL = 'student-notification-service.container-test=1';
/** A command's output is kept up to this size (container logs included). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Longest a single podman command may take, the image build apart. */
const COMMAND_TIMEOUT_MS = 120_000;

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Why the suite cannot run podman here, or null when it can. */
export function podmanUnavailable(baseImage: string): string | null {
  const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (version.error !== undefined || version.status !== 0)
    return `podman is not installed or does not run (${version.error?.message ?? version.stderr.trim()})`;
  const base = spawnSync('podman', ['image', 'exists', baseImage], { encoding: 'utf8' });
  if (base.status !== 0)
    return `the base image ${baseImage} is not in podman's local store (the build uses --pull=never: podman pull it first)`;
  return null;
}

/** Why docker-compose cannot run here, or null when it can. */
export function composeUnavailable(): string | null {
  const version = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });
  if (version.error !== undefined || version.status !== 0)
    return `docker-compose is not installed (Debian: apt-get install docker-compose)`;
  return null;
}

/** Runs a command to its end and resolves with its exit code and output; never rejects for a non-zero exit. */
export function run(command: string, args: readonly string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { encoding: 'utf8', maxBuffer: MAX_OUTPUT_BYTES, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr });
      },
    );
  });
}

/** podman with `args`; resolves whatever the exit code. */
export function podman(args: readonly string[], timeoutMs?: number): Promise<RunResult> {
  return run('podman', args, timeoutMs);
}

/** podman with `args`, rejecting with its output unless it exits 0; resolves with stdout. */
export async function podmanOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await podman(args, timeoutMs);
  if (result.code !== 0)
    throw new Error(`podman ${args.join(' ')} exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** Removes every container, then every volume, that carries the suite's label. */
export async function removeLabelled(): Promise<void> {
  const containers = (await podman(['ps', '-a', '-q', '--filter', `label=${SUITE_LABEL}`])).stdout.split('\n');
  const ids = containers.map((id) => id.trim()).filter((id) => id !== '');
  if (ids.length > 0) await podman(['rm', '-f', '-v', '-t', '0', ...ids]);
  const volumes = (await podman(['volume', 'ls', '-q', '--filter', `label=${SUITE_LABEL}`])).stdout.split('\n');
  const names = volumes.map((name) => name.trim()).filter((name) => name !== '');
  if (names.length > 0) await podman(['volume', 'rm', '-f', ...names]);
}

/** The container's state as `podman inspect` reports it. */
export async function containerState(
  name: string,
): Promise<{ running: boolean; exitCode: number; health: string | null }> {
  const text = await podmanOk(['inspect', '--format', '{{json .State}}', name]);
  const state = JSON.parse(text) as {
    Running: boolean;
    ExitCode: number;
    Health?: { Status?: string };
    Healthcheck?: { Status?: string };
  };
  const health = state.Health?.Status ?? state.Healthcheck?.Status ?? null;
  return { running: state.Running, exitCode: state.ExitCode, health: health === '' ? null : health };
}

/** The host port podman published for the container's 8080. */
export async function publishedPort(name: string): Promise<number> {
  const text = await podmanOk(['port', name, '8080/tcp']);
  const match = /:(\d+)\s*$/m.exec(text.trim());
  if (match === null) throw new Error(`podman port ${name}: no published port in ${JSON.stringify(text)}`);
  return Number(match[1]);
}
