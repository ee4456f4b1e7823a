/**
 * Gardener error codes from an error, as provider extensions derive them (util.DetermineError with
 * provider-aws's KnownCodes, pkg/apis/aws/helper/error_codes.go): an error that already carries
 * codes keeps them; otherwise every code whose pattern matches the message, sorted.
 */
import {
  ERR_CONFIGURATION_PROBLEM,
  ERR_INFRA_DEPENDENCIES,
  ERR_INFRA_QUOTA_EXCEEDED,
  ERR_INFRA_RATE_LIMITS_EXCEEDED,
  ERR_INFRA_RESOURCES_DEPLETED,
  ERR_INFRA_UNAUTHENTICATED,
  ERR_INFRA_UNAUTHORIZED,
  ERR_RETRYABLE_CONFIGURATION_PROBLEM,
  ERR_RETRYABLE_INFRA_DEPENDENCIES,
} from './types.ts';

export const KNOWN_CODES: ReadonlyArray<readonly [string, RegExp]> = [
  [ERR_INFRA_UNAUTHENTICATED, /AuthFailure|InvalidAccessKeyId|InvalidSecretAccessKey/i],
  [ERR_INFRA_UNAUTHORIZED, /Unauthorized|InvalidClientTokenId|SignatureDoesNotMatch|UnauthorizedOperation|AccessDenied/i],
  [
    ERR_INFRA_QUOTA_EXCEEDED,
    /((?:^|[^t]|(?:[^s]|^)t|(?:[^e]|^)st|(?:[^u]|^)est|(?:[^q]|^)uest|(?:[^e]|^)quest|(?:[^r]|^)equest)LimitExceeded|Quotas|Quota.*exceeded|exceeded quota|Quota has been met|QUOTA_EXCEEDED)/i,
  ],
  [ERR_INFRA_RATE_LIMITS_EXCEEDED, /RequestLimitExceeded|Throttling|Too many requests/i],
  [
    ERR_INFRA_DEPENDENCIES,
    /PendingVerification|Access Not Configured|accessNotConfigured|DependencyViolation|OptInRequired|DeleteConflict|Conflict|inactive billing state|timeout while waiting for state to become|InvalidCidrBlock|already busy for|InsufficientFreeAddressesInSubnet|internal server error|A resource with the ID|currently associated with another service/i,
  ],
  [ERR_RETRYABLE_INFRA_DEPENDENCIES, /RetryableError/i],
  [ERR_INFRA_RESOURCES_DEPLETED, /not available in the current hardware cluster|InsufficientInstanceCapacity|out of stock/i],
  [
    ERR_CONFIGURATION_PROBLEM,
    /not supported in your requested Availability Zone|InvalidParameterValue|notFound|InvalidSubnet|Invalid value|violates constraint|no attached internet gateway found|invalid VPC attributes|unrecognized feature gate|runtime-config invalid key|strict decoder error|not allowed to configure an unsupported|error during apply of object .* is invalid:|duplicate zones|overlapping zones/i,
  ],
  [
    ERR_RETRYABLE_CONFIGURATION_PROBLEM,
    /is misconfigured and requires zero voluntary evictions|SDK.CanNotResolveEndpoint|The requested configuration is currently not supported/i,
  ],
];

/** DetermineError then ExtractErrorCodes: `carried` when there are any, else the matching codes in sorted order (sets.List). */
export function determineErrorCodes(message: string, carried: readonly string[] = []): string[] {
  if (carried.length > 0) return [...carried];
  const codes = new Set<string>();
  for (const [code, pattern] of KNOWN_CODES) if (pattern.test(message)) codes.add(code);
  return [...codes].sort();
}
