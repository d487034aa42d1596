// README's "A first call", run as written: each `$ ` line of its sh blocks
// (with the lines its trailing backslashes continue) goes through `sh -c`
// against a running service, and what it prints must be the lines the README
// shows under it. test/unit/readme-first-call.test.ts runs it against the
// service started in the test; .ci/run against `npm start` on a fresh clone:
//   node scripts/first-call.js http://localhost:PORT
// The README's own address (http://localhost:8080) is replaced by the one given.
const { execFile } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const SECTION = '## A first call';
const README_ADDRESS = 'http://localhost:8080';

/** The section's commands, each with the output the README shows for it. */
function firstCallCommands(readme) {
  const start = readme.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`README.md has no "${SECTION}" section`);
  const end = readme.indexOf('\n## ', start + SECTION.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const commands = [];
  for (const block of section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const lines = block[1].replace(/\n$/, '').split('\n');
    if (!lines[0].startsWith('$ '))
      throw new Error(`a block of "${SECTION}" does not start with a $ prompt: ${lines[0]}`);
    for (let i = 0; i < lines.length;) {
      let command = lines[i].slice(2);
      i++;
      while (command.endsWith('\\') && i < lines.length) command = `${command}\n${lines[i++]}`;
      const output = [];
      while (i < lines.length && !lines[i].startsWith('$ ')) output.push(lines[i++]);
      commands.push({ command, output: output.join('\n') });
    }
  }
  if (commands.length === 0) throw new Error(`"${SECTION}" holds no command`);
  return commands;
}

/**
 * Runs each command against `baseUrl`; resolves to the list of mismatches
 * (empty when every command printed what the README shows). Asynchronous, so
 * that a service in the same process keeps answering. Line ends are compared
 * as the README shows them: the service's CRLF reads as one line end.
 */
async function runFirstCall(readme, baseUrl) {
  const mismatches = [];
  for (const { command, output } of firstCallCommands(readme)) {
    const run = await new Promise((resolve) => {
      execFile(
        'sh',
        ['-c', command.split(README_ADDRESS).join(baseUrl)],
        { encoding: 'utf8', timeout: 30_000 },
        (error, stdout, stderr) => resolve({ status: error === null ? 0 : (error.code ?? 1), stdout, stderr }),
      );
    });
    const printed = run.stdout.replace(/\r\n/g, '\n').replace(/\n$/, '');
    if (run.status !== 0 || printed !== output)
      mismatches.push({ command, expected: output, printed, status: run.status, stderr: run.stderr });
  }
  return mismatches;
}

module.exports = { README_ADDRESS, firstCallCommands, runFirstCall };

if (require.main === module) {
  const baseUrl = (process.argv[2] ?? README_ADDRESS).replace(/\/$/, '');
  const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  void runFirstCall(readme, baseUrl).then((mismatches) => {
    for (const m of mismatches)
      console.error(
        `README's first call differs: $ ${m.command}\n-- README shows:\n${m.expected}\n-- printed (exit ${m.status}):\n${m.printed}\n${m.stderr}`,
      );
    if (mismatches.length > 0) process.exit(1);
    console.log(
      `README's first call: ${firstCallCommands(readme).length} commands answered as README shows (${baseUrl})`,
    );
  });
}
