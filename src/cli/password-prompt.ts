// The password of a new user or operator account: from a terminal, asked
// twice without echo; otherwise the first line of stdin (scripts pipe it).
import { askSecret } from './ask-secret';

/** From a terminal: asks twice without echo. Otherwise: the first line of stdin. */
export async function readPassword(prompt: string): Promise<string> {
  const password = await askSecret(prompt);
  if (process.stdin.isTTY && (await askSecret('Once more: ')) !== password)
    throw new Error('the two passwords differ; nothing was written');
  return password;
}
