// The password of a new user or operator account: from a terminal, asked
// twice without echo; otherwise the first line of stdin (scripts pipe it).
/** From a terminal: asks twice without echo. Otherwise: the first line of stdin. */
export async function readPassword(prompt: string): Promise<string> {
  const password = await ask(prompt);
  if (process.stdin.isTTY && (await ask('Once more: ')) !== password)
    throw new Error('the two passwords differ; nothing was written');
  return password;
}

function ask(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    return new Promise((resolve, reject) => {
      let data = '';
      stdin.setEncoding('utf8');
      stdin.on('data', (chunk: string) => (data += chunk));
      stdin.on('end', () => resolve(data.split(/\r?\n/)[0] ?? ''));
      stdin.on('error', reject);
    });
  }
  process.stderr.write(prompt);
  return new Promise((resolve) => {
    let password = '';
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          resolve(password);
          return;
        }
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') password = password.slice(0, -1);
        else password += ch;
      }
    };
    stdin.on('data', onData);
  });
}
