/**
 * Typed errors shared by every part of Hostwarden. Each has a stable `code` that logs, metrics and
 * tests can match on, and a `transient` flag: the sync loop retries transient errors with backoff
 * and never exits on them, while permanent ones are reported and skipped until the input changes.
 */
export class HostwardenError extends Error {
  readonly code: string;
  readonly transient: boolean;

  constructor(code: string, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.transient = options.transient ?? false;
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
  constructor(
    provider: string,
    message: string,
    options: { transient?: boolean; cause?: unknown; zone?: string; code?: string } = {},
  ) {
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
