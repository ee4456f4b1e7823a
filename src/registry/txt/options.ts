/**
 * Options of the TXT registry and their validation, which follows external-dns's (prefix and
 * suffix exclusive, a non-empty owner id, a 32-byte key when encrypting) and names the flag.
 */
import type { RecordType } from '../../endpoint/endpoint.ts';
import { ConfigError } from '../../errors.ts';
import type { Logger } from '../../log.ts';

export interface TXTRegistryOptions {
  ownerId: string;
  prefix?: string;
  suffix?: string;
  wildcardReplacement?: string;
  managedRecordTypes: readonly RecordType[];
  excludeRecordTypes: readonly RecordType[];
  /** Key for reading encrypted values; values are also written encrypted unless `encrypt` is false. */
  aesKey?: Buffer;
  encrypt?: boolean;
  /**
   * Owner id whose records this instance may update and delete (--migrate-from-txt-owner). Their
   * owner label is reported as read, so the planner can decide to take them over; the takeover
   * update then rewrites the TXT record with this instance's owner id.
   */
  oldOwnerId?: string;
  /** Serve records() from memory for this long after a read (--txt-cache-interval); 0 = off. */
  cacheIntervalMs?: number;
  /** Split TXT names at these zones instead of the first dot (newest external-dns behaviour). */
  zones?: readonly string[];
  logger: Logger;
  now?: () => number;
}

/** The configuration fields the TXT registry is built from, named as in the CLI config. */
export interface TXTRegistryConfig {
  txtOwnerId: string;
  txtPrefix: string;
  txtSuffix: string;
  txtWildcardReplacement: string;
  txtEncryptEnabled: boolean;
  txtEncryptAesKey: string;
  txtCacheIntervalMs: number;
  migrateFromTxtOwner: string;
  managedRecordTypes: readonly RecordType[];
  excludeRecordTypes: readonly RecordType[];
}

export function validateOptions(options: TXTRegistryOptions): void {
  if (options.ownerId === '') throw new ConfigError('--txt-owner-id must not be empty', '--txt-owner-id');
  // A comma or quote would end the owner label early and make every record unreadable.
  if (/[,"\s]/.test(options.ownerId)) {
    throw new ConfigError(`--txt-owner-id ${JSON.stringify(options.ownerId)} must not contain commas, quotes or spaces`, '--txt-owner-id');
  }
  if ((options.prefix ?? '') !== '' && (options.suffix ?? '') !== '') {
    throw new ConfigError('--txt-prefix and --txt-suffix cannot be used together', '--txt-prefix');
  }
  if (options.encrypt === true && options.aesKey === undefined) {
    throw new ConfigError('--txt-encrypt-enabled needs --txt-encrypt-aes-key', '--txt-encrypt-aes-key');
  }
  if (options.aesKey !== undefined && options.aesKey.length !== 32) {
    throw new ConfigError(`--txt-encrypt-aes-key must be 32 bytes, got ${options.aesKey.length}`, '--txt-encrypt-aes-key');
  }
  const cache = options.cacheIntervalMs ?? 0;
  if (!Number.isFinite(cache) || cache < 0) throw new ConfigError('--txt-cache-interval must not be negative', '--txt-cache-interval');
  if (options.oldOwnerId !== undefined && options.oldOwnerId !== '' && options.oldOwnerId === options.ownerId) {
    throw new ConfigError('--migrate-from-txt-owner must differ from --txt-owner-id', '--migrate-from-txt-owner');
  }
}
