// What the console's routes share: the store's roles, the settings, the
// bcrypt threads, the sign-in throttle (in the store), the audit trail's writer, the clock.
import type { BlockList } from 'node:net';
import type { BcryptPool } from '../access/bcrypt-pool';
import type { Logger } from '../log';
import type { AccessStore, AdminStore, ConsoleStore } from '../store';
import type { ConsoleAudit } from './audit';
import type { Request, Response } from 'express';
import type { ImportJobs } from './import-jobs';
import type { View } from './view';
import type { SignInThrottle } from './sign-in-throttle';

export interface ConsoleSettings {
  /** Secure cookies: PUBLIC_BASE_URL is https. */
  readonly secureCookies: boolean;
  /** A session unused this long ends (CONSOLE_SESSION_IDLE_MINUTES). */
  readonly idleMs: number;
  /** A session ends this long after its sign-in, used or not (CONSOLE_SESSION_MAX_HOURS). */
  readonly maxAgeMs: number;
  /** CONSOLE_ALLOW: the addresses that may reach the console; null: every address. */
  readonly allow: BlockList | null;
  /** The zone times are shown in for an operator who chose none (CONSOLE_TIME_ZONE); UTC when left out. */
  readonly timeZone?: string;
  /** A school's event receiver may be http:// (EVENTS_ALLOW_HTTP); false when left out. */
  readonly eventsAllowHttp?: boolean;
}

export interface ConsoleStores {
  readonly console: ConsoleStore;
  readonly admin: AdminStore;
  readonly access: Pick<AccessStore, 'insertAuditEntries'>;
}

export interface ConsoleContext {
  readonly stores: ConsoleStores;
  readonly settings: ConsoleSettings;
  readonly logger: Logger;
  readonly bcrypt: BcryptPool;
  readonly throttle: SignInThrottle;
  readonly audit: ConsoleAudit;
  /** The roster import's uploads and jobs, in the store. */
  readonly imports: ImportJobs;
  readonly now: () => Date;
  /** A message was queued again: an in-process worker may look now rather than at its next poll. */
  readonly onResent?: () => void;
}

/** A page's handler: the console's parts, the page's view, the request and its answer, then what the route's path names (an id). */
export type PageHandler<A extends readonly unknown[] = [], V extends View = View> = (
  context: ConsoleContext,
  view: V,
  req: Request,
  res: Response,
  ...args: A
) => Promise<void>;
