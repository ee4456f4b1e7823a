/**
 * Starts the AWS emulator with Route53, STS, EC2 and ELBv2, for tests and the benchmark. EC2,
 * ELBv2 and Route53's private zones share one `NetworkModel` (VPCs, subnets, load balancers).
 */
import { Ec2Emulator } from './ec2-emulator.ts';
import { NetworkModel } from './ec2-model.ts';
import { Elbv2Emulator } from './elbv2-emulator.ts';
import { AwsEmulator } from './emulator.ts';
import { Route53Emulator } from './route53-emulator.ts';
import { StsEmulator } from './sts-emulator.ts';

export interface AwsEmulators {
  aws: AwsEmulator;
  route53: Route53Emulator;
  sts: StsEmulator;
  ec2: Ec2Emulator;
  elbv2: Elbv2Emulator;
  network: NetworkModel;
  url: string;
  stop(): Promise<void>;
}

export async function startAwsEmulators(): Promise<AwsEmulators> {
  const aws = new AwsEmulator();
  const network = new NetworkModel();
  const route53 = new Route53Emulator(aws, network);
  const sts = new StsEmulator(aws);
  const ec2 = new Ec2Emulator(aws, network);
  const elbv2 = new Elbv2Emulator(aws, network);
  const url = await aws.start();
  return { aws, route53, sts, ec2, elbv2, network, url, stop: () => aws.stop() };
}
