// SIGTERM and SIGINT are caught from the first moment of the process, not
// only once it is listening: as a container's PID 1, Node ignores a signal it
// has no handler for, so a stop during start-up would wait for the runtime's
// kill (exit 137). A signal that comes before the process is ready is kept
// and handed to its shutdown as soon as it is; a second one during start-up
// exits at once, as a second signal does later (docs/operating.md#graceful-shutdown).
// Tested in test/unit/stop-signals.test.ts.

export type StopHandler = (signal: string) => void;

/** Starts catching the stop signals; call the returned function with the real shutdown once started. */
export function catchStopSignals(
  exitNow: (code: number) => void = (code) => process.exit(code),
): (stop: StopHandler) => void {
  let pending: string | null = null;
  let handler: StopHandler | null = null;
  const receive = (signal: string) => {
    if (handler !== null) handler(signal);
    else if (pending === null) pending = signal;
    else exitNow(1);
  };
  process.on('SIGTERM', () => receive('SIGTERM'));
  process.on('SIGINT', () => receive('SIGINT'));
  return (stop) => {
    handler = stop;
    if (pending !== null) stop(pending);
  };
}
