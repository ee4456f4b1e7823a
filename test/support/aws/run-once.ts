/**
 * `hostwarden run --once --provider aws` against the emulators, as the CLI tests start it: the
 * root identity's keys in the environment, no instance metadata, HOME in a scratch directory (so no
 * real ~/.aws is read), JSON logs, no metrics listener and no pause between Route53 batches.
 */
import { runCli } from '../cli.ts';
import type { CliResult } from '../cli.ts';
import type { AwsEmulators } from './start.ts';

export interface AwsRunOnce {
  manifestsDir: string;
  owner: string;
  home: string;
  extra?: readonly string[];
}

export function runAwsOnce(e: AwsEmulators, o: AwsRunOnce): Promise<CliResult> {
  return runCli(
    [
      'run',
      '--once',
      '--provider',
      'aws',
      '--manifests-dir',
      o.manifestsDir,
      '--domain-filter',
      'example.org',
      '--txt-owner-id',
      o.owner,
      '--metrics-address',
      '',
      '--log-format',
      'json',
      '--aws-endpoint-url',
      e.url,
      '--aws-batch-change-interval',
      '0s',
      ...(o.extra ?? []),
    ],
    {
      env: {
        EXTERNAL_DNS_AWS_ACCESS_KEY_ID: e.aws.rootIdentity.accessKeyId,
        EXTERNAL_DNS_AWS_SECRET_ACCESS_KEY: e.aws.rootIdentity.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: 'true',
        HOME: o.home,
      },
      timeoutMs: 60_000,
    },
  );
}
