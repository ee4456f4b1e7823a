/**
 * Turns SDK errors into ProviderErrors that an operator can act on from one log line: the AWS
 * action, the role in use when access is denied, and whether a retry may help.
 */
import { ProviderError, errorMessage } from '../errors.ts';
import { awsErrorCode, httpStatusOf, isRetryable } from './retry.ts';

export interface AwsCallContext {
  provider: string;
  /** IAM action, e.g. `route53:ChangeResourceRecordSets`. */
  action: string;
  /** The assumed role, when one is configured. */
  role?: string | undefined;
  zone?: string | undefined;
}

const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'InvalidClientTokenId', 'SignatureDoesNotMatch', 'ExpiredToken']);

export function isAccessDenied(err: unknown): boolean {
  return DENIED.has(awsErrorCode(err)) || httpStatusOf(err) === 403;
}

/** Access refused by AWS, with the refused action and the role in use, for status reports. */
export class AwsAccessDeniedError extends ProviderError {
  readonly action: string;
  readonly role: string | undefined;
  constructor(provider: string, message: string, options: { action: string; role: string | undefined; cause?: unknown; zone?: string }) {
    super(provider, message, {
      code: 'PROVIDER_ACCESS_DENIED',
      transient: false,
      cause: options.cause,
      ...(options.zone === undefined ? {} : { zone: options.zone }),
    });
    this.action = options.action;
    this.role = options.role;
  }
}

export function toProviderError(err: unknown, ctx: AwsCallContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const code = awsErrorCode(err);
  const zone = ctx.zone === undefined ? {} : { zone: ctx.zone };
  if (isAccessDenied(err)) {
    // The credential provider fails inside the first real call: an STS refusal is about the role.
    const stsDenied = /\bsts:AssumeRole\b/.test(errorMessage(err));
    const who = ctx.role === undefined ? 'the configured credentials' : `role ${ctx.role}`;
    const action = stsDenied && ctx.role !== undefined ? 'sts:AssumeRole' : ctx.action;
    return new AwsAccessDeniedError(ctx.provider, `access denied: ${action} for ${who} (${code || 'HTTP 403'}: ${errorMessage(err)})`, {
      action,
      role: ctx.role,
      cause: err,
      ...zone,
    });
  }
  const where = ctx.zone === undefined ? ctx.action : `${ctx.action} on zone ${ctx.zone}`;
  return new ProviderError(ctx.provider, `${where} failed: ${code === '' ? '' : `${code}: `}${errorMessage(err)}`, {
    code: code === 'InvalidChangeBatch' ? 'PROVIDER_INVALID_CHANGE' : 'PROVIDER_FAILED',
    transient: isRetryable(err),
    cause: err,
    ...zone,
  });
}
