// A one-line progress bar on stderr, redrawn at most ten times a second.
// Only on a terminal: in a pipe or a log file it would be noise.

export interface Progress {
  /** Starts (or restarts) the bar for a stage of `total` steps. */
  stage(label: string, total: number): void;
  update(done: number): void;
  done(): void;
}

const WIDTH = 30;
const REDRAW_MS = 100;

export const silentProgress: Progress = { stage() {}, update() {}, done() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY !== true) return silentProgress;
  let label = '';
  let total = 0;
  let last = 0;
  let shown = false;
  const draw = (done: number) => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
    stream.write(
      `\r${label} [${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}\u001b[K`,
    );
    shown = true;
  };
  return {
    stage(newLabel, newTotal) {
      label = newLabel;
      total = newTotal;
      last = 0;
      draw(0);
    },
    update(done) {
      const now = Date.now();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      draw(done);
    },
    done() {
      if (shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
