// What a command writes on stdout and stderr, kept instead of printed, for
// the tests that run a command's main() as an operator would.

export interface CommandOutput {
  /** Everything written since the start or the last clear(), both streams in order. */
  text(): string;
  clear(): void;
}

/** Spies on both streams until jest.restoreAllMocks(). */
export function captureCommandOutput(): CommandOutput {
  let output = '';
  const keep = (chunk: string | Uint8Array): boolean => {
    output += String(chunk);
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(keep);
  jest.spyOn(process.stderr, 'write').mockImplementation(keep);
  return {
    text: () => output,
    clear: () => {
      output = '';
    },
  };
}
