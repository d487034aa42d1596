import type { InteropClient } from './client';
import { dotnet } from './dotnet';
import { java } from './java';
import { php } from './php';
import { python } from './python';
import { wcf } from './wcf';

export type { InteropClient } from './client';

/** Every client the suite runs, in the order it runs them. */
export const CLIENTS: readonly InteropClient[] = [dotnet, wcf, java, python, php];
