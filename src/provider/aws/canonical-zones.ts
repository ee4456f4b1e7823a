/**
 * Hosted zone ids of AWS services that alias records point at. An alias target needs the zone
 * id of the load balancer's (or distribution's) own zone, which the hostname alone determines.
 * The table covers the common regions; targets inside one of our own hosted zones also work.
 */

/** Application and Classic Load Balancers: `name-123.<region>.elb.amazonaws.com`. */
const ELB: Readonly<Record<string, string>> = {
  'us-east-1': 'Z35SXDOTRQ7X7K',
  'us-east-2': 'Z3AADJGX6KTTL2',
  'us-west-1': 'Z368ELLRRE2KJ0',
  'us-west-2': 'Z1H1FL5HABSF5',
  'eu-west-1': 'Z32O12XQLNTSW2',
  'eu-west-2': 'ZHURV8PSTC4K8',
  'eu-central-1': 'Z215JYRZR1TBD5',
  'ap-southeast-1': 'Z1LMS91P8CMLE5',
  'ap-southeast-2': 'Z1GM3OXH4ZPM65',
  'ap-northeast-1': 'Z14GRHDCWA56QT',
};

/** Network Load Balancers: `name-123.elb.<region>.amazonaws.com`. */
const NLB: Readonly<Record<string, string>> = {
  'us-east-1': 'Z26RNL4JYFTOTI',
  'us-east-2': 'ZLMOA37VPKANP',
  'us-west-1': 'Z24FKFUX50B4VW',
  'us-west-2': 'Z18D5FSROUN65G',
  'eu-west-1': 'Z2IFOLAFXWLO4F',
  'eu-west-2': 'ZD4D7Y8KGAS4G',
  'eu-central-1': 'Z3F0SRJ5LGBH90',
  'ap-southeast-1': 'ZKVM4W9LS7TM',
  'ap-southeast-2': 'ZCT6FZBF4DROD',
  'ap-northeast-1': 'Z31USIVHYNEOWT',
};

const CLOUDFRONT = 'Z2FDTNDATAQYW2';

/** The canonical hosted zone of an AWS service hostname, or undefined for other names. */
export function canonicalHostedZone(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name.endsWith('.cloudfront.net')) return CLOUDFRONT;
  const nlb = /\.elb\.([a-z0-9-]+)\.amazonaws\.com$/.exec(name);
  if (nlb !== null) return NLB[nlb[1] as string];
  const elb = /\.([a-z0-9-]+)\.elb\.amazonaws\.com$/.exec(name);
  if (elb !== null) return ELB[elb[1] as string];
  return undefined;
}
