// Configuration from the environment (names: docs/design.md#configuration-names), checked
// once at start so that a bad value stops the service with a clear message.
import { isIP } from 'node:net';
import path from 'node:path';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { z } from 'zod';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './access/audit-retention';
import { MAX_RETENTION_DAYS } from './delivery/outbox-retention';
import {
  bool,
  country,
  fraction,
  integer,
  integerOrOff,
  isSecretSetting,
  resolveSecretFiles,
  secretSetting,
  setting,
  text,
  timeZone,
  url,
} from './config-values';
import { DEFAULT_NAMESPACE } from './contract/contract';
import { parseDeliveryConfig, type DeliveryConfig } from './delivery/config';
import { deliverySettings } from './delivery/config/delivery-config';
import { DEFAULT_GROUP_COMMIT_MS } from './store';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './server/http-server';
import { DEFAULT_MAX_XML_DEPTH } from './wire/soap/envelope-reader';
import { DEFAULT_MAX_ROWS } from './import/read-limits';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly soapNamespace: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** Longest wait of a queueing call for others to share its commit (SQLite: push notifications only); null: no group commit. */
  readonly groupCommitMs: number | null;
  readonly demoData: boolean;
  readonly bodyLimit: number;
  /** MAX_QUERY_STRING_LENGTH: a longer query string is refused with 400, as ASP.NET does; 0 turns the check off. */
  readonly maxQueryStringLength: number;
  /** Timeouts and caps of the HTTP connections (docs/operating.md#connections). */
  readonly connections: ConnectionLimits;
  /** Deepest element nesting a SOAP request may have (docs/operating.md#limits-on-a-request). */
  readonly xmlMaxDepth: number;
  readonly trustProxy: boolean | number | string;
  readonly helpPages: boolean;
  readonly logLevel: string;
  readonly operationTimeoutMs: number;
  readonly smsDefaultRegion: CountryCode;
  readonly smsAllowedCountries: readonly CountryCode[];
  /** Providers, worker, retries, AuthCode limits and templates (src/delivery/config). */
  readonly delivery: DeliveryConfig;
  /** Bearer token of the admin API; null turns the admin API off. */
  readonly adminToken: string | null;
  /** JSON answers for the mobile apps (docs/design.md#json-bodies). */
  readonly jsonBodies: boolean;
  /** Serve /metrics on this port instead of PORT; null: on PORT. */
  readonly metricsPort: number | null;
  /** Longest a graceful shutdown waits for requests and deliveries in flight. */
  readonly shutdownTimeoutMs: number;
  /** `auto`: pretty when stdout is a terminal, JSON otherwise. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** ACCESS_POLICY: the access policy file (docs/security.md); null: every operation open. */
  readonly accessPolicy: string | null;
  /** PUBLIC_BASE_URL without its trailing slash: the address ?wsdl, ?disco and help pages give; null: the caller's Host. */
  readonly publicBaseUrl: string | null;
  /** Audit entries are deleted this many days after they were recorded; null keeps them. */
  readonly auditRetentionDays: number | null;
  /** How often the call budgets merge their counts with the other nodes' (PostgreSQL). */
  readonly accessSyncIntervalMs: number;
  /** Threads checking Basic passwords (BCRYPT_THREADS); null: one per core but one, at least one. */
  readonly bcryptThreads: number | null;
  /** OpenTelemetry traces (docs/operating.md#traces); null: off, and nothing of OpenTelemetry is loaded. */
  readonly tracing: TracingConfig | null;
  /** SHADOW_*: read calls also sent to the legacy service and compared (docs/migration.md#shadow); null: off. */
  readonly shadow: ShadowConfig | null;
  /** RECORD_REQUESTS*: read calls written for `npm run compare` (docs/migration.md#recording-requests); null: off. */
  readonly recordRequests: RecordRequestsConfig | null;
  /** The operators' console (docs/console.md). */
  readonly console: ConsoleConfig;
}

export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP base URL. */
  readonly endpoint: string;
  /** OTEL_SERVICE_NAME; null: the package's name. */
  readonly serviceName: string | null;
}

export interface ShadowConfig {
  readonly url: string;
  readonly sample: number;
  readonly concurrency: number;
  /** SHADOW_MAX_PER_SECOND: shadow calls started per second at most. */
  readonly maxPerSecond: number;
  readonly timeoutMs: number;
  /** SHADOW_IGNORE, resolved; null: no rules. */
  readonly ignoreFile: string | null;
  readonly keep: { readonly dir: string; readonly maxFiles: number; readonly maxBytes: number } | null;
  /** SHADOW_FORWARD_AUTHORIZATION: the caller's Authorization is sent on. */
  readonly forwardAuthorization: boolean;
  /** SHADOW_USER with its password: the shadow's own Basic credentials; null: none. */
  readonly credentials: { readonly user: string; readonly password: string } | null;
}

export interface RecordRequestsConfig {
  readonly file: string;
  readonly sample: number;
  readonly maxBytes: number;
}

export interface ConsoleConfig {
  /** CONSOLE: false answers 404 under /console/. */
  readonly enabled: boolean;
  readonly sessionIdleMinutes: number;
  readonly sessionMaxHours: number;
  /** CONSOLE_ALLOW: the addresses and ranges that may reach the console; null: every address. */
  readonly allow: readonly string[] | null;
  /** CONSOLE_IMPORT_MAX_ROWS: rows a roster import may hold. */
  readonly importMaxRows: number;
  /** CONSOLE_TIME_ZONE: the zone of the console's times when the operator chose none. */
  readonly timeZone: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxyValue(raw: string): boolean | number | string {
  const value = raw.trim();
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^[0-9]+$/.test(value)) return Number(value);
  for (const entry of value.split(',').map((e) => e.trim())) {
    const [address, prefix] = entry.split('/');
    const valid =
      PROXY_NAMES.has(entry) ||
      (isIP(address) !== 0 && (prefix === undefined || /^[0-9]+$/.test(prefix) || isIP(prefix) !== 0));
    if (!valid)
      throw new ConfigError(`TRUST_PROXY: "${entry}" is not an address, a subnet, loopback, linklocal or uniquelocal`);
  }
  return value;
}

const schema = z.object({
  PORT: integer('PORT', 0, 65535).default(8080).meta(setting('service', 'The HTTP port the service listens on.')),
  HOST: text('HOST').default('0.0.0.0').meta(setting('service', 'The address the service listens on.')),
  SOAP_NAMESPACE: z
    .string()
    .trim()
    .refine(
      (v) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(v) && !/["<>&]/.test(v),
      'SOAP_NAMESPACE must be an absolute URI, e.g. http://tempuri.org/',
    )
    .default(DEFAULT_NAMESPACE)
    .meta(setting('service', 'The service namespace (`{ns}`) of the WSDLs, the SOAP actions and the answers.')),
  DATA_DIR: text('DATA_DIR')
    .default('./data')
    .meta(
      setting(
        'store',
        'Folder of the embedded SQLite file `service.sqlite`, created with its schema on the first start.',
      ),
    ),
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (v) => /^postgres(ql)?:\/\//.test(v),
      'DATABASE_URL must be a postgres:// or postgresql:// connection string',
    )
    .optional()
    .meta(
      secretSetting(
        'store',
        'PostgreSQL connection string; set, PostgreSQL is the store ([storage](architecture.md#storage)).',
        'unset: the embedded SQLite store',
      ),
    ),
  STORE_GROUP_COMMIT_MS: integerOrOff('STORE_GROUP_COMMIT_MS', 0, 100, 'milliseconds')
    .default(DEFAULT_GROUP_COMMIT_MS)
    .meta(
      setting(
        'store',
        "The longest a queueing call waits, in milliseconds, to share its commit with concurrent calls while earlier ones are written ([PostgreSQL at scale](delivery.md#postgresql-at-scale)). On SQLite only SendNotificationType's push notifications share a commit; `off` writes each on its own there too.",
      ),
    ),
  DEMO_DATA: bool('DEMO_DATA')
    .default(true)
    .meta(setting('store', 'Load the demo data into an empty embedded store at start (never into PostgreSQL).')),
  BODY_LIMIT: integer('BODY_LIMIT', 1024, 1024 * 1024 * 1024)
    .default(1048576)
    .meta(
      setting(
        'requests',
        'Largest request body, in bytes; a larger one gets a 413 ([limits on a request](operating.md#limits-on-a-request)).',
      ),
    ),
  // ASP.NET's httpRuntime maxQueryStringLength, whose default is 2048 (docs/design.md#query-string-length).
  MAX_QUERY_STRING_LENGTH: integer('MAX_QUERY_STRING_LENGTH', 0, 1024 * 1024)
    .default(2048)
    .meta(
      setting(
        'requests',
        'Longest query string, in characters after the `?`; a longer one gets a 400, as ASP.NET answers past its `maxQueryStringLength` ([design](design.md#query-string-length)). 0 turns the check off.',
      ),
    ),
  // A call needs 4 levels, a WS-Security header 5 or 6; the reader's cost grows with the square of the depth.
  XML_MAX_DEPTH: integer('XML_MAX_DEPTH', 8, 1024)
    .default(DEFAULT_MAX_XML_DEPTH)
    .meta(
      setting(
        'requests',
        'Deepest element nesting of a SOAP request, the Envelope counting 1; a deeper one gets the 400 `soap:Client` fault ([limits on a request](operating.md#limits-on-a-request)).',
      ),
    ),
  HEADERS_TIMEOUT_MS: integer('HEADERS_TIMEOUT_MS', 1000, 600000)
    .default(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs)
    .meta(
      setting(
        'requests',
        `Longest a client may take to send a request's headers, in milliseconds; over it, a 408 ([connections](operating.md#connections)).`,
      ),
    ),
  REQUEST_TIMEOUT_MS: integer('REQUEST_TIMEOUT_MS', 1000, 3600000)
    .default(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs)
    .meta(
      setting(
        'requests',
        'Longest a client may take to send a whole request, body included, in milliseconds; over it, a 408. Not the time the operation takes. At least `HEADERS_TIMEOUT_MS`.',
      ),
    ),
  KEEP_ALIVE_TIMEOUT_MS: integer('KEEP_ALIVE_TIMEOUT_MS', 100, 600000)
    .default(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs)
    .meta(
      setting(
        'requests',
        'How long an idle keep-alive connection stays open, in milliseconds; behind a load balancer, longer than its idle timeout.',
      ),
    ),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS', 1, 1000000)
    .default(DEFAULT_CONNECTION_LIMITS.maxConnections)
    .meta(
      setting(
        'requests',
        'Open connections at most; at the cap an idle one (or one whose body arrives slower than `BODY_MIN_RATE`) is closed to make room, or the new one gets a 503.',
      ),
    ),
  MAX_CONNECTIONS_PER_ADDRESS: integerOrOff('MAX_CONNECTIONS_PER_ADDRESS', 1, 1000000)
    .default(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress)
    .meta(
      setting(
        'requests',
        'Open connections per client address at most, capped the same way as `MAX_CONNECTIONS`; connections from a proxy `TRUST_PROXY` trusts are not counted (behind it every client has its address) ([connections](operating.md#connections)).',
      ),
    ),
  BODY_MIN_RATE: integerOrOff('BODY_MIN_RATE', 1, 1073741824, 'bytes a second')
    .default(DEFAULT_CONNECTION_LIMITS.bodyMinRate)
    .meta(
      setting(
        'requests',
        'Bytes a second a request body must arrive at, averaged over its last 5 s once it has been under way 1 s; slower, a 408, and at the connection cap it gives way to a new connection ([connections](operating.md#connections)).',
      ),
    ),
  TRUST_PROXY: z
    .string()
    .optional()
    .meta(
      setting(
        'service',
        "Trust `X-Forwarded-*` from these proxies, in Express's syntax: `true`, a hop count, or a comma-separated list of addresses, subnets, `loopback`, `linklocal` or `uniquelocal`.",
        'unset: trust none',
      ),
    ),
  HELP_PAGES: bool('HELP_PAGES')
    .default(true)
    .meta(
      setting(
        'service',
        'The HTML help pages (`/`, `/X.asmx`, `/X.asmx?op=Op`); `false` turns them off ([help pages](service.md#help-pages)).',
      ),
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .meta(setting('observability', `pino's log level.`)),
  OPERATION_TIMEOUT_MS: integer('OPERATION_TIMEOUT_MS', 100, 600000)
    .default(30000)
    .meta(
      setting('service', 'Longest an operation may run, in milliseconds, before it fails with a `soap:Server` fault.'),
    ),
  SMS_DEFAULT_REGION: country('SMS_DEFAULT_REGION')
    .default('SY')
    .meta(setting('authCode', 'Region of the phone numbers given without a country code.')),
  SMS_ALLOWED_COUNTRIES: z
    .string()
    .optional()
    .meta(
      setting(
        'authCode',
        'Comma-separated ISO 3166 codes of the countries whose numbers AuthCode accepts.',
        'the default region (`SMS_DEFAULT_REGION`)',
      ),
    ),
  // A short token can be guessed; 16 characters is the floor, 32 random bytes the advice.
  ADMIN_TOKEN: z
    .string()
    .trim()
    .min(16, 'ADMIN_TOKEN must be at least 16 characters (try: openssl rand -hex 32)')
    .optional()
    .meta(
      secretSetting(
        'access',
        'Bearer token of the [admin API](operating.md#admin-api), at least 16 characters (`openssl rand -hex 32`).',
        'unset: the admin API is off',
      ),
    ),
  JSON_BODIES: bool('JSON_BODIES')
    .default(false)
    .meta(
      setting(
        'service',
        'JSON answers for the mobile apps over HTTP GET and POST ([JSON bodies](operating.md#json-bodies-for-the-mobile-apps)).',
      ),
    ),
  METRICS_PORT: integer('METRICS_PORT', 0, 65535)
    .optional()
    .meta(
      setting(
        'observability',
        'Serve `/metrics` on this port only, instead of on `PORT`; for `npm run worker`, the port of its own `/metrics` ([metrics](operating.md#metrics)).',
        'unset: on `PORT` (the worker: none)',
      ),
    ),
  SHUTDOWN_TIMEOUT_MS: integer('SHUTDOWN_TIMEOUT_MS', 0, 600000)
    .default(10000)
    .meta(
      setting(
        'observability',
        'Longest a graceful shutdown waits for requests and deliveries in flight, in milliseconds; the process exits at most 2 s after it whatever still runs ([graceful shutdown](operating.md#graceful-shutdown)).',
      ),
    ),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .meta(
      setting(
        'observability',
        '`json` (one JSON object per line), `pretty` (coloured, for people), or `auto`: pretty when stdout is a terminal ([logs](operating.md#logs)).',
      ),
    ),
  ACCESS_POLICY: text('ACCESS_POLICY')
    .optional()
    .meta(
      setting(
        'access',
        'Path of the access policy file (YAML or JSON): networks, Basic users, budgets per endpoint and operation ([security](security.md)); re-read on `SIGHUP`.',
        'unset: every operation open (a warning at start)',
      ),
    ),
  PUBLIC_BASE_URL: z
    .string()
    .trim()
    .refine(
      isPublicBaseUrl,
      'PUBLIC_BASE_URL must be an absolute http:// or https:// URL with no query, fragment or user, e.g. https://sns.example.org',
    )
    .transform((v) => v.replace(/\/+$/, ''))
    .optional()
    .meta(
      setting(
        'service',
        "The service's public address (`https://sns.example.org`, a path allowed), which `?wsdl`, `?disco` and the help pages give instead of the caller's `Host`.",
        'unset: the address the caller used',
      ),
    ),
  AUDIT_RETENTION_DAYS: integerOrOff('AUDIT_RETENTION_DAYS', 1, MAX_RETENTION_DAYS, 'days')
    .default(DEFAULT_AUDIT_RETENTION_DAYS)
    .meta(
      setting(
        'access',
        'Days after which audit entries (reads of personal data) are deleted ([audit trail](access-limits.md#audit-trail)).',
      ),
    ),
  ACCESS_SYNC_INTERVAL_MS: integer('ACCESS_SYNC_INTERVAL_MS', 100, 60000)
    .default(2000)
    .meta(
      setting(
        'access',
        `How often, in milliseconds, each node merges its call-budget counts with the other nodes' through PostgreSQL ([call budgets](access-limits.md#call-budgets)); a shorter interval overshoots less and writes more.`,
      ),
    ),
  BCRYPT_THREADS: integer('BCRYPT_THREADS', 1, 64)
    .optional()
    .meta(
      setting(
        'access',
        'Threads checking Basic passwords (bcrypt), each with a queue of 8 checks ([speed](security.md#speed)).',
        'one per core but one, at least 1',
      ),
    ),
  // The standard OpenTelemetry names, so that a platform that sets them for every service sets them here too.
  OTEL_EXPORTER_OTLP_ENDPOINT: url('OTEL_EXPORTER_OTLP_ENDPOINT')
    .optional()
    .meta(
      setting(
        'observability',
        'Base URL of an OpenTelemetry collector speaking OTLP over HTTP (`http://localhost:4318`); set, the service sends its traces to `<URL>/v1/traces` as JSON ([traces](operating.md#traces)).',
        'unset: no traces, and no tracing code loaded',
      ),
    ),
  OTEL_SERVICE_NAME: text('OTEL_SERVICE_NAME')
    .max(255, 'OTEL_SERVICE_NAME must be at most 255 characters')
    .optional()
    .meta(
      setting(
        'observability',
        "The `service.name` of the traces, to tell this deployment's spans apart in the collector.",
        "the package's name, `student-notification-service`",
      ),
    ),
  SHADOW_URL: url('SHADOW_URL')
    .optional()
    .meta(
      setting(
        'migration',
        'The legacy service (`http://legacy.example`): each read call is answered here, then sent there and the two answers compared, counted in `notify_shadow_comparisons_total` ([shadow](migration.md#shadow)). Writes are never sent.',
        'unset: no shadow calls',
      ),
    ),
  SHADOW_SAMPLE: fraction('SHADOW_SAMPLE')
    .default(1)
    .meta(setting('migration', 'The fraction of read calls shadowed ([shadow](migration.md#shadow)).')),
  SHADOW_CONCURRENCY: integer('SHADOW_CONCURRENCY', 1, 256)
    .default(4)
    .meta(
      setting(
        'migration',
        'Shadow calls in flight at most; a read call finding them all busy is not shadowed and counts as `dropped`.',
      ),
    ),
  SHADOW_MAX_PER_SECOND: integer('SHADOW_MAX_PER_SECOND', 1, 100000)
    .default(100)
    .meta(
      setting(
        'migration',
        "Shadow calls started per second at most, whatever `SHADOW_SAMPLE` and the legacy's speed: a sampled call past it is not shadowed and counts as `dropped` ([what it costs](migration.md#shadow)).",
      ),
    ),
  SHADOW_TIMEOUT_MS: integer('SHADOW_TIMEOUT_MS', 100, 120000)
    .default(5000)
    .meta(setting('migration', 'Longest a shadow call may take, in milliseconds; past it the call counts as `error`.')),
  SHADOW_IGNORE: text('SHADOW_IGNORE')
    .optional()
    .meta(
      setting(
        'migration',
        'An ignore file (YAML or JSON) of accepted differences, e.g. `docs/asmx-differences.yaml`: what it accepts counts as `explained` ([ignore rules](migration.md#ignore-rules)).',
        'unset: every difference counts',
      ),
    ),
  SHADOW_KEEP_DIR: text('SHADOW_KEEP_DIR')
    .optional()
    .meta(
      setting(
        'migration',
        'A folder where each unexplained difference is kept as one JSON file (request without credentials, both answers), mode 0600, within `SHADOW_KEEP_MAX_FILES` and `SHADOW_KEEP_MAX_BYTES`, oldest removed first. It holds personal data: keep it private.',
        'unset: nothing kept',
      ),
    ),
  SHADOW_KEEP_MAX_FILES: integer('SHADOW_KEEP_MAX_FILES', 1, 100000)
    .default(1000)
    .meta(setting('migration', 'Most files kept in `SHADOW_KEEP_DIR`.')),
  SHADOW_KEEP_MAX_BYTES: integer('SHADOW_KEEP_MAX_BYTES', 1024, 10737418240)
    .default(104857600)
    .meta(setting('migration', 'Most bytes kept in `SHADOW_KEEP_DIR` (default 100 MiB).')),
  SHADOW_FORWARD_AUTHORIZATION: bool('SHADOW_FORWARD_AUTHORIZATION')
    .default(false)
    .meta(
      setting(
        'migration',
        "Send the caller's `Authorization` header on with each shadow call. Off, a shadow call carries none, or `SHADOW_USER`'s ([shadow](migration.md#shadow)); never together with `SHADOW_USER`.",
      ),
    ),
  SHADOW_USER: text('SHADOW_USER')
    .regex(/^[^:\s]{1,64}$/, 'SHADOW_USER must be a user name without colons or spaces, at most 64 characters')
    .optional()
    .meta(
      setting(
        'migration',
        "The shadow's own Basic user for a legacy behind Basic, with its password in `SHADOW_PASSWORD` (or the file `SHADOW_PASSWORD_FILE` names) ([shadow](migration.md#shadow)).",
        'unset: no credentials of its own',
      ),
    ),
  SHADOW_PASSWORD: z
    .string()
    .optional()
    .meta(secretSetting('migration', "`SHADOW_USER`'s password.", 'unset: required with `SHADOW_USER`')),
  RECORD_REQUESTS: text('RECORD_REQUESTS')
    .optional()
    .meta(
      setting(
        'migration',
        'A file the read calls received are appended to, as JSON Lines of `{method, path, headers, body}` for `npm run compare -- --requests` ([recording requests](migration.md#recording-requests)); credentials removed, never a write or an AuthCode call, created with mode 0600.',
        'unset: nothing recorded',
      ),
    ),
  RECORD_REQUESTS_SAMPLE: fraction('RECORD_REQUESTS_SAMPLE')
    .default(1)
    .meta(setting('migration', 'The fraction of read calls recorded.')),
  RECORD_REQUESTS_MAX_BYTES: integer('RECORD_REQUESTS_MAX_BYTES', 1024, 107374182400)
    .default(1073741824)
    .meta(
      setting(
        'migration',
        'The recording stops adding to `RECORD_REQUESTS` once the file is this large (default 1 GiB); calls past it count as `full`.',
      ),
    ),
  CONSOLE: bool('CONSOLE')
    .default(true)
    .meta(
      setting(
        'console',
        "The [operators' console](console.md) under `/console/`; `false` answers 404 there. Nobody can sign in until an account is made with `npm run operator -- add NAME`.",
      ),
    ),
  CONSOLE_SESSION_IDLE_MINUTES: integer('CONSOLE_SESSION_IDLE_MINUTES', 1, 1440)
    .default(30)
    .meta(setting('console', 'A console session unused this many minutes ends ([sessions](console.md#sessions)).')),
  CONSOLE_SESSION_MAX_HOURS: integer('CONSOLE_SESSION_MAX_HOURS', 1, 720)
    .default(12)
    .meta(setting('console', 'A console session ends this many hours after its sign-in, however busy.')),
  CONSOLE_IMPORT_MAX_ROWS: integer('CONSOLE_IMPORT_MAX_ROWS', 1, 10_000_000)
    .default(DEFAULT_MAX_ROWS)
    .meta(
      setting(
        'console',
        'Rows a roster import in the console may hold, all collections of the file together; a file with more is refused whole ([import limits](console.md#import-limits)).',
      ),
    ),
  CONSOLE_TIME_ZONE: timeZone('CONSOLE_TIME_ZONE')
    .default('UTC')
    .meta(
      setting(
        'console',
        'The time zone the console shows times in for an account that has chosen none on the Preferences page (a setting of the account; `Console default` clears it), and on the sign-in page ([times](console.md#times)); each time names its zone and gives the UTC time in its tooltip.',
      ),
    ),
  CONSOLE_ALLOW: z
    .string()
    .trim()
    .optional()
    .meta(
      setting(
        'console',
        'Comma-separated addresses and CIDR ranges that may reach the console (others get 403); the caller is `req.ip`, so `TRUST_PROXY` decides whose address that is.',
        'unset: every address',
      ),
    ),
});

/** The service's settings as declared, for docs/configuration.md (npm run docs:config). */
export { schema as serviceSettings };

/** Where clients reach the service; a path is allowed (a proxy serving it under /sns). */
function isPublicBaseUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '' &&
    !/[?#]/.test(value)
  );
}

/** The names of every setting, and of those that are secrets (`<NAME>_FILE` may give them). */
const SETTING_NAMES = (() => {
  const shape: Record<string, z.ZodType> = { ...schema.shape, ...deliverySettings.shape };
  const all = new Set(Object.keys(shape));
  const secret = new Set(Object.keys(shape).filter((name) => isSecretSetting(shape[name])));
  return { all, secret };
})();

/** The secret settings, which `<NAME>_FILE` may give (docs/configuration.md). */
export const secretSettingNames: readonly string[] = [...SETTING_NAMES.secret];

/** Reads the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most deployment tools.
  const given = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ''),
  );
  // Secrets given as files are read first, so that each is checked as if set directly (resolveSecretFiles, src/config-values.ts).
  const files = resolveSecretFiles(given, SETTING_NAMES);
  if (!files.ok) throw new ConfigError(`Invalid configuration:\n  ${files.problems.join('\n  ')}`);
  const present = files.env;
  const parsed = schema.safeParse(present);
  const delivery = parseDeliveryConfig(present);
  if (!parsed.success || !delivery.ok) {
    const problems = parsed.success
      ? []
      : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`);
    if (!delivery.ok) problems.push(...delivery.problems);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const c = parsed.data;
  // Node refuses a headers timeout longer than the request it is part of.
  if (c.HEADERS_TIMEOUT_MS > c.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `Invalid configuration:\n  HEADERS_TIMEOUT_MS (${c.HEADERS_TIMEOUT_MS}) must not be longer than REQUEST_TIMEOUT_MS (${c.REQUEST_TIMEOUT_MS})`,
    );
  }
  const allowed =
    c.SMS_ALLOWED_COUNTRIES === undefined ? [c.SMS_DEFAULT_REGION] : parseCountries(c.SMS_ALLOWED_COUNTRIES);
  return {
    port: c.PORT,
    host: c.HOST,
    soapNamespace: c.SOAP_NAMESPACE,
    dataDir: path.resolve(c.DATA_DIR),
    databaseUrl: c.DATABASE_URL ?? null,
    groupCommitMs: c.STORE_GROUP_COMMIT_MS,
    demoData: c.DEMO_DATA,
    bodyLimit: c.BODY_LIMIT,
    maxQueryStringLength: c.MAX_QUERY_STRING_LENGTH,
    xmlMaxDepth: c.XML_MAX_DEPTH,
    connections: {
      headersTimeoutMs: c.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: c.KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: c.MAX_CONNECTIONS,
      // 0: no per-address cap (ConnectionLimits).
      maxConnectionsPerAddress: c.MAX_CONNECTIONS_PER_ADDRESS ?? 0,
      // 0: no minimum rate for a body (ConnectionLimits).
      bodyMinRate: c.BODY_MIN_RATE ?? 0,
    },
    trustProxy: c.TRUST_PROXY === undefined ? false : trustProxyValue(c.TRUST_PROXY),
    helpPages: c.HELP_PAGES,
    logLevel: c.LOG_LEVEL,
    operationTimeoutMs: c.OPERATION_TIMEOUT_MS,
    smsDefaultRegion: c.SMS_DEFAULT_REGION,
    smsAllowedCountries: allowed,
    delivery: delivery.config,
    adminToken: c.ADMIN_TOKEN ?? null,
    jsonBodies: c.JSON_BODIES,
    metricsPort: c.METRICS_PORT ?? null,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    logFormat: c.LOG_FORMAT,
    accessPolicy: c.ACCESS_POLICY === undefined ? null : path.resolve(c.ACCESS_POLICY),
    publicBaseUrl: c.PUBLIC_BASE_URL ?? null,
    auditRetentionDays: c.AUDIT_RETENTION_DAYS,
    accessSyncIntervalMs: c.ACCESS_SYNC_INTERVAL_MS,
    bcryptThreads: c.BCRYPT_THREADS ?? null,
    shadow:
      c.SHADOW_URL === undefined
        ? null
        : {
            url: c.SHADOW_URL.replace(/\/+$/, ''),
            sample: c.SHADOW_SAMPLE,
            concurrency: c.SHADOW_CONCURRENCY,
            maxPerSecond: c.SHADOW_MAX_PER_SECOND,
            timeoutMs: c.SHADOW_TIMEOUT_MS,
            ignoreFile: c.SHADOW_IGNORE === undefined ? null : path.resolve(c.SHADOW_IGNORE),
            forwardAuthorization: c.SHADOW_FORWARD_AUTHORIZATION,
            credentials: shadowCredentials(c),
            keep:
              c.SHADOW_KEEP_DIR === undefined
                ? null
                : {
                    dir: path.resolve(c.SHADOW_KEEP_DIR),
                    maxFiles: c.SHADOW_KEEP_MAX_FILES,
                    maxBytes: c.SHADOW_KEEP_MAX_BYTES,
                  },
          },
    recordRequests:
      c.RECORD_REQUESTS === undefined
        ? null
        : {
            file: path.resolve(c.RECORD_REQUESTS),
            sample: c.RECORD_REQUESTS_SAMPLE,
            maxBytes: c.RECORD_REQUESTS_MAX_BYTES,
          },
    tracing:
      c.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
        ? null
        : { endpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: c.OTEL_SERVICE_NAME ?? null },
    console: {
      enabled: c.CONSOLE,
      sessionIdleMinutes: c.CONSOLE_SESSION_IDLE_MINUTES,
      sessionMaxHours: c.CONSOLE_SESSION_MAX_HOURS,
      allow: c.CONSOLE_ALLOW === undefined || c.CONSOLE_ALLOW === '' ? null : parseAllowList(c.CONSOLE_ALLOW),
      importMaxRows: c.CONSOLE_IMPORT_MAX_ROWS,
      timeZone: c.CONSOLE_TIME_ZONE,
    },
  };
}

/** SHADOW_USER with its password from SHADOW_PASSWORD (or SHADOW_PASSWORD_FILE, already read); never the password in an error. */
function shadowCredentials(c: {
  SHADOW_FORWARD_AUTHORIZATION: boolean;
  SHADOW_USER?: string;
  SHADOW_PASSWORD?: string;
}): { user: string; password: string } | null {
  const problem = (text: string) => new ConfigError(`Invalid configuration:\n  ${text}`);
  const { SHADOW_USER: user, SHADOW_PASSWORD: password } = c;
  if (user === undefined) {
    if (password !== undefined) throw problem('SHADOW_PASSWORD and SHADOW_PASSWORD_FILE need SHADOW_USER');
    return null;
  }
  if (c.SHADOW_FORWARD_AUTHORIZATION)
    throw problem(
      'SHADOW_USER and SHADOW_FORWARD_AUTHORIZATION exclude each other: a shadow call carries one Authorization',
    );
  if (password === undefined)
    throw problem('SHADOW_USER needs its password in one of SHADOW_PASSWORD or SHADOW_PASSWORD_FILE');
  return { user, password };
}

function parseAllowList(list: string): string[] {
  const entries = list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    if (family === 0 || (prefix !== undefined && !(/^[0-9]+$/.test(prefix) && Number(prefix) <= bits)))
      throw new ConfigError(
        `Invalid configuration:\n  CONSOLE_ALLOW: "${entry}" is not an IPv4 or IPv6 address or CIDR range`,
      );
  }
  return entries;
}

function parseCountries(list: string): CountryCode[] {
  const codes = list
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== '');
  const bad = codes.filter((c) => !isSupportedCountry(c));
  if (codes.length === 0 || bad.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  SMS_ALLOWED_COUNTRIES: ${bad.length > 0 ? bad.join(', ') + ' are not' : 'must list'} ISO 3166 country codes such as SY,LB`,
    );
  }
  return codes as CountryCode[];
}
