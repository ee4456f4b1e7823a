/**
 * Typed errors shared by every part of Hostwarden. Each has a stable `code` that logs, metrics and
 * tests can match on, and a `transient` flag: the sync loop retries transient errors with backoff
 * and never exits on them, while permanent ones are reported and skipped until the input changes.
 *
 * ERROR_CODES lists every code once, with its default `transient` (an error may override it when
 * the same failure can go either way, e.g. a provider call that failed in transport or was refused).
 */
interface CodeEntry {
  transient: boolean;
  meaning: string;
}

const code = (transient: boolean, meaning: string): CodeEntry => ({ transient, meaning });

export const ERROR_CODES = {
  CONFIG_INVALID: code(false, 'bad flags, environment or configuration file; start-up stops'),
  OPERATOR_CONFLICT: code(false, 'the upstream ExternalDNS Operator runs in the cluster; `hostwarden operator` does not start beside it'),
  ENDPOINT_INVALID: code(false, 'an endpoint that cannot become a DNS record'),
  SOURCE_FAILED: code(false, 'a source could not read its objects'),
  TEMPLATE_EXECUTION_FAILED: code(false, "a template failed on one object; that object's records are kept as they are"),
  REGISTRY_FAILED: code(false, 'ownership records could not be read or written'),
  TLS_INVALID: code(false, 'a serving certificate or key that cannot be used'),
  ADMISSION_POLICY_INVALID: code(false, 'an ExternalIPRangerAdmissionConfig or Network object that cannot be used'),
  DNSRECORD_CONFIGURATION: code(false, 'a DNSRecord whose provider configuration or Secret cannot be used'),
  PRIVATELINK_AWS_FAILED: code(true, 'an AWS call of the PrivateLink controller failed'),
  PRIVATELINK_STEP_FAILED: code(true, 'a PrivateLink reconcile step is not done yet or failed'),
  PRIVATELINK_BAD_CREDENTIALS: code(false, 'a PrivateLink credentials Secret cannot give AWS credentials'),
  KUBE_UNREACHABLE: code(true, 'no answer from the Kubernetes API server'),
  KUBE_NOT_FOUND: code(false, 'the Kubernetes API server answered 404'),
  KUBE_CONFLICT: code(true, 'the Kubernetes API server answered 409'),
  KUBE_GONE: code(true, 'the Kubernetes API server answered 410 (resourceVersion too old)'),
  KUBE_API_FAILED: code(false, 'another error status from the Kubernetes API server'),
  KUBE_LEASE_FORBIDDEN: code(true, 'no permission on the leader-election Lease (403); the elector asks again later'),
  EMBEDDED_PEER_KEY: code(true, 'the TSIG key the embedded replicas transfer zones with cannot be read or created'),
  DNS_TRANSPORT_FAILED: code(true, 'a DNS exchange over UDP or TCP failed'),
  DNS_TRANSFER_FAILED: code(false, 'a zone transfer or SOA query was refused, failed TSIG, or answered with a malformed stream'),
  ZONE_FILE_INVALID: code(false, 'a zone file that cannot be parsed'),
  FILE_WRITE_FAILED: code(true, 'a file could not be written durably'),
  ETCD_FAILED: code(true, 'an etcd request failed'),
  STORE_STATE: code(false, 'the embedded zone store was used out of order (a bug)'),
  DATA_DIR_LOCK_FAILED: code(false, 'the data directory could not be locked for this process'),
  ZONE_READ_FAILED: code(false, 'the embedded zone store could not create its directory or read a zone (at start)'),
  ZONE_WRITE_FAILED: code(true, 'the embedded zone store could not write a zone'),
  ZONE_NOT_MANAGED: code(false, 'a change for a zone the provider does not manage'),
  NOTIFY: code(true, 'a DNS NOTIFY was not acknowledged'),
  PROVIDER_FAILED: code(false, 'a provider call failed'),
  PROVIDER_UNREACHABLE: code(true, 'the provider did not answer'),
  PROVIDER_UNAVAILABLE: code(true, 'the provider answered that it is unavailable'),
  PROVIDER_TIMEOUT: code(true, 'a provider call timed out'),
  PROVIDER_THROTTLED: code(true, 'the provider throttled the request'),
  PROVIDER_BAD_RESPONSE: code(false, 'the provider answered something that cannot be read'),
  PROVIDER_NO_ZONE: code(false, 'no zone of the provider holds the record'),
  PROVIDER_REJECTED: code(false, 'the provider refused the change'),
  PROVIDER_INVALID_CHANGE: code(false, 'a change set the provider refuses as invalid'),
  PROVIDER_CONFLICT: code(false, 'the provider holds a record that conflicts with the change'),
  PROVIDER_RECORD_CONFLICT: code(false, 'two changes in one batch conflict'),
  PROVIDER_RECORD_EXISTS: code(false, 'a record to create already exists'),
  PROVIDER_RECORD_NOT_FOUND: code(false, 'a record to update or delete does not exist'),
  PROVIDER_DUPLICATE_RECORD: code(false, 'a change set holds the same record twice'),
  PROVIDER_ZONE_NOT_FOUND: code(false, 'the zone does not exist at the provider'),
  PROVIDER_UNSUPPORTED: code(false, 'a record or feature the provider does not support'),
  PROVIDER_UNAUTHORIZED: code(false, 'the provider refused the credentials'),
  PROVIDER_ACCESS_DENIED: code(false, 'the credentials lack a permission'),
  PROVIDER_TSIG: code(false, 'the DNS server refused the TSIG signature'),
  PROVIDER_FORMERR: code(false, 'the DNS server answered FORMERR to an update'),
  PROVIDER_SERVFAIL: code(true, 'the DNS server answered SERVFAIL to an update'),
  PROVIDER_NXDOMAIN: code(false, 'the DNS server answered NXDOMAIN to an update prerequisite'),
  PROVIDER_NOTIMP: code(false, 'the DNS server does not implement updates'),
  PROVIDER_REFUSED: code(false, 'the DNS server refused the update (key or policy)'),
  PROVIDER_YXDOMAIN: code(false, 'an update prerequisite failed: the name exists'),
  PROVIDER_YXRRSET: code(false, 'an update prerequisite failed: the record set exists'),
  PROVIDER_NXRRSET: code(false, 'an update prerequisite failed: the record set does not exist'),
  PROVIDER_NOTAUTH: code(false, 'the DNS server is not authoritative for the zone or refused the key'),
  PROVIDER_NOTZONE: code(false, 'a record of the update is outside the zone'),
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

export class HostwardenError extends Error {
  readonly code: ErrorCode;
  readonly transient: boolean;

  constructor(code: ErrorCode, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.transient = options.transient ?? ERROR_CODES[code].transient;
  }
}

/** Bad flags or environment: start-up stops with one message that names the flag. */
export class ConfigError extends HostwardenError {
  readonly flag: string | undefined;
  constructor(message: string, flag?: string) {
    super('CONFIG_INVALID', message);
    this.flag = flag;
  }
}

/** An endpoint that cannot become a DNS record (bad name, bad target, wrong type). */
export class InvalidEndpointError extends HostwardenError {
  constructor(message: string) {
    super('ENDPOINT_INVALID', message);
  }
}

/** A source could not read its objects (unreadable directory, API server down, …). */
export class SourceError extends HostwardenError {
  constructor(message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super('SOURCE_FAILED', message, options);
  }
}

/** A provider call failed; `transient` says whether retrying may help. */
export class ProviderError extends HostwardenError {
  readonly provider: string;
  readonly zone: string | undefined;
  constructor(provider: string, message: string, options: { transient?: boolean; cause?: unknown; zone?: string; code?: ErrorCode } = {}) {
    super(options.code ?? 'PROVIDER_FAILED', message, options);
    this.provider = provider;
    this.zone = options.zone;
  }
}

/** Ownership metadata could not be read or written (bad TXT value, wrong AES key, …). */
export class RegistryError extends HostwardenError {
  constructor(message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super('REGISTRY_FAILED', message, options);
  }
}

/** True when retrying the failed operation may succeed; unknown errors count as transient. */
export function isTransient(err: unknown): boolean {
  if (err instanceof HostwardenError) return err.transient;
  return true;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
