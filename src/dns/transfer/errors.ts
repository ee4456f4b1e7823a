/**
 * The one error type of the transfer client. `reason` lets the follower decide what to do next
 * without parsing messages: 'transport' and 'timeout' are retried, a 'rcode' of REFUSED or a
 * 'tsig' failure needs an operator, and 'diverged' (an IXFR that does not fit the local copy)
 * is answered by a full AXFR.
 */
import { HostwardenError } from '../../errors.ts';

export type TransferFailure = 'transport' | 'timeout' | 'rcode' | 'tsig' | 'malformed' | 'serial' | 'too-large' | 'diverged';

export class TransferError extends HostwardenError {
  readonly reason: TransferFailure;
  readonly zone: string;
  /** The RCODE's name when `reason` is 'rcode' (REFUSED, NOTAUTH, SERVFAIL, …). */
  readonly rcode: string | undefined;

  constructor(zone: string, reason: TransferFailure, message: string, options: { rcode?: string; cause?: unknown; transient?: boolean } = {}) {
    const network = reason === 'transport' || reason === 'timeout';
    super(network ? 'DNS_TRANSPORT_FAILED' : 'DNS_TRANSFER_FAILED', `${zone}: ${message}`, {
      transient: options.transient ?? network,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.reason = reason;
    this.zone = zone;
    this.rcode = options.rcode;
  }
}
