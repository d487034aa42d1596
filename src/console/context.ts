// What the console's routes share: the store's roles, the settings, the
// bcrypt threads, the sign-in throttle, the audit trail's writer, the clock.
import type { BlockList } from 'node:net';
import type { BcryptPool } from '../access/bcrypt-pool';
import type { LoginThrottle } from '../access/login-throttle';
import type { Logger } from '../log';
import type { AccessStore, AdminStore, ConsoleStore, ImportStore } from '../store';
import type { ConsoleAudit } from './audit';
import type { Request, Response } from 'express';
import type { ImportJobs } from './import-jobs';
import type { SignedInView, View } from './view';

export interface ConsoleSettings {
  /** Secure cookies: PUBLIC_BASE_URL is https. */
  readonly secureCookies: boolean;
  /** A session unused this long ends (CONSOLE_SESSION_IDLE_MINUTES). */
  readonly idleMs: number;
  /** A session ends this long after its sign-in, used or not (CONSOLE_SESSION_MAX_HOURS). */
  readonly maxAgeMs: number;
  /** CONSOLE_ALLOW: the addresses that may reach the console; null: every address. */
  readonly allow: BlockList | null;
  /** Rows a roster import may hold (CONSOLE_IMPORT_MAX_ROWS); DEFAULT_MAX_ROWS when left out. */
  readonly importMaxRows?: number;
  /** The zone times are shown in for an operator who chose none (CONSOLE_TIME_ZONE); UTC when left out. */
  readonly timeZone?: string;
  /** A school's event receiver may be http:// (EVENTS_ALLOW_HTTP); false when left out. */
  readonly eventsAllowHttp?: boolean;
}

export interface ConsoleStores {
  readonly console: ConsoleStore;
  readonly admin: AdminStore;
  readonly access: Pick<AccessStore, 'insertAuditEntries'>;
  /** The roster import's (src/import): the same store role as `npm run import`. */
  readonly import: ImportStore;
}

export interface ConsoleContext {
  readonly stores: ConsoleStores;
  readonly settings: ConsoleSettings;
  readonly logger: Logger;
  readonly bcrypt: BcryptPool;
  readonly throttle: LoginThrottle;
  readonly audit: ConsoleAudit;
  /** The roster import's uploads and jobs on this node. */
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

/** A page's handler behind the session check: who is signed in is known. */
export type SignedPageHandler<A extends readonly unknown[] = []> = PageHandler<A, SignedInView>;
