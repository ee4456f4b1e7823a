/**
 * Limits shared by every HTTP(S) listener: the metrics/health server, `webhook-server`, and the
 * HTTPS webhooks of admission-webhook, dnsrecord-controller, operator and privatelink-controller.
 * Each listener applies them on its own (the cap is per listener).
 */
import type { FlagValues } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError } from '../errors.ts';
import { DEFAULT_CONNECTION_LIMITS } from './connection-limit.ts';
import type { ConnectionLimits } from './connection-limit.ts';

const seconds = (ms: number): string => `${ms / 1000}s`;

export const HTTP_FLAGS: readonly FlagSpec[] = [
  {
    name: 'http-max-connections',
    kind: 'int',
    default: String(DEFAULT_CONNECTION_LIMITS.maxConnections),
    help: 'Open connections each HTTP(S) listener (metrics, webhooks) accepts; at the cap the longest-idle one is closed for a new one.',
  },
  {
    name: 'http-tls-handshake-timeout',
    kind: 'duration',
    default: seconds(DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs),
    help: 'Time an HTTPS webhook connection has to complete the TLS handshake.',
  },
  {
    name: 'http-headers-timeout',
    kind: 'duration',
    default: seconds(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
    help: 'Time a new HTTP(S) connection has to send its request headers.',
  },
  {
    name: 'http-idle-timeout',
    kind: 'duration',
    default: seconds(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs),
    help: 'A kept-alive HTTP(S) connection without a request for this long is closed.',
  },
];

/** The --http-* flags, checked; the request timeout stays each listener's own. */
export function connectionLimitsFromFlags(flags: Pick<FlagValues, 'num' | 'has'>): Partial<ConnectionLimits> {
  const read = (name: string, fallback: number): number => {
    if (!flags.has(name)) return fallback;
    const v = flags.num(name);
    if (!Number.isFinite(v) || v <= 0) throw new ConfigError(`--${name} must be greater than 0`, `--${name}`);
    return v;
  };
  return {
    maxConnections: read('http-max-connections', DEFAULT_CONNECTION_LIMITS.maxConnections),
    handshakeTimeoutMs: read('http-tls-handshake-timeout', DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs),
    headersTimeoutMs: read('http-headers-timeout', DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
    idleTimeoutMs: read('http-idle-timeout', DEFAULT_CONNECTION_LIMITS.idleTimeoutMs),
  };
}
