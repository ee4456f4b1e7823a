/** Starts the AWS emulator with Route53 and STS, for tests and the benchmark. */
import { AwsEmulator } from './emulator.ts';
import { Route53Emulator } from './route53-emulator.ts';
import { StsEmulator } from './sts-emulator.ts';

export interface AwsEmulators {
  aws: AwsEmulator;
  route53: Route53Emulator;
  sts: StsEmulator;
  url: string;
  stop(): Promise<void>;
}

export async function startAwsEmulators(): Promise<AwsEmulators> {
  const aws = new AwsEmulator();
  const route53 = new Route53Emulator(aws);
  const sts = new StsEmulator(aws);
  const url = await aws.start();
  return { aws, route53, sts, url, stop: () => aws.stop() };
}
