/** Builds an aws provider against the emulators the way the CLI does, from flags. */
import { FlagValues } from '../../../src/config/config.ts';
import { parseArgs } from '../../../src/config/parse.ts';
import type { Logger } from '../../../src/log.ts';
import { silentLogger } from '../../../src/log.ts';
import { AWS_FLAGS } from '../../../src/provider/aws/flags.ts';
import { Route53Provider } from '../../../src/provider/aws/route53.ts';
import { ZONE_FILTER_FLAGS } from '../../../src/provider/zone-filter.ts';
import type { AwsEmulators } from './start.ts';

/** The SDK would otherwise probe the instance metadata address for a region or credentials. */
export function isolateAwsSdk(): void {
  process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
  // Tests know they run on Node 20; the SDK's once-per-process notice about Node 22 is noise here.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
}

/** Flags as `--name value` pairs (a list repeats the flag); credentials of the emulator's test user unless overridden. */
export function awsFlags(e: AwsEmulators, args: Record<string, string | boolean | string[]> = {}): FlagValues {
  const all: Record<string, string | boolean | string[]> = {
    'aws-endpoint-url': e.url,
    'aws-access-key-id': e.aws.rootIdentity.accessKeyId,
    'aws-secret-access-key': e.aws.rootIdentity.secretAccessKey,
    'aws-batch-change-interval': '0s',
    'aws-requests-per-second': '0',
    ...args,
  };
  const argv = Object.entries(all).flatMap(([k, v]) =>
    typeof v === 'boolean' ? [v ? `--${k}` : `--no-${k}`] : Array.isArray(v) ? v.flatMap((x) => [`--${k}`, x]) : [`--${k}`, v],
  );
  return new FlagValues(parseArgs(argv, {}, [...AWS_FLAGS, ...ZONE_FILTER_FLAGS]).values);
}

export function awsProvider(
  e: AwsEmulators,
  args: Record<string, string | boolean | string[]> = {},
  opts: { logger?: Logger; domainFilters?: string[] } = {},
): Promise<Route53Provider> {
  return Route53Provider.fromConfig(
    { flags: awsFlags(e, args), domainFilters: opts.domainFilters ?? [], excludeDomains: [] },
    { logger: opts.logger ?? silentLogger(), sleep: () => Promise.resolve(), random: () => 0.5 },
  );
}
