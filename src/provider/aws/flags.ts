/** Flags of the aws (Route53) provider, with external-dns's names where external-dns has them. */
import type { FlagSpec } from '../../config/flags.ts';

export const AWS_FLAGS: readonly FlagSpec[] = [
  {
    name: 'aws-zone-type',
    kind: 'string',
    default: '',
    choices: ['', 'public', 'private'],
    help: 'aws: only public or only private hosted zones (default both).',
  },
  { name: 'aws-zone-tags', kind: 'list', default: [], help: 'aws: only hosted zones with these tags (key=value or key; repeatable).' },
  {
    name: 'aws-zone-match-parent',
    kind: 'bool',
    default: false,
    help: 'aws: accepted; Hostwarden always uses the zones above --domain-filter domains too (records stay limited to the filter).',
  },
  { name: 'aws-zones-cache-duration', kind: 'duration', default: '0s', help: 'aws: reuse the hosted zone list for this long (0 lists zones on every sync).' },
  {
    name: 'aws-records-cache-duration',
    kind: 'duration',
    default: '5m',
    help: "aws: reuse a zone's record list for this long, kept current with our own writes (0 lists every sync).",
  },
  { name: 'aws-assume-role', kind: 'string', default: '', help: 'aws: ARN of an IAM role to assume for every Route53 call.' },
  { name: 'aws-assume-role-external-id', kind: 'string', default: '', help: "aws: external id required by the role's trust policy." },
  {
    name: 'aws-profile',
    kind: 'list',
    default: [],
    help: 'aws: profile of the shared credentials file (repeatable: the zones of every profile, each changed with its own profile).',
  },
  { name: 'aws-shared-credentials-file', kind: 'string', default: '', help: 'aws: shared credentials file (default ~/.aws/credentials).' },
  { name: 'aws-access-key-id', kind: 'string', default: '', help: 'aws: static access key id (prefer the default chain or a profile).' },
  { name: 'aws-secret-access-key', kind: 'string', default: '', help: 'aws: secret of --aws-access-key-id.' },
  { name: 'aws-region', kind: 'string', default: 'us-east-1', help: 'aws: region of the API clients (Route53 itself is global).' },
  {
    name: 'aws-endpoint-url',
    kind: 'string',
    default: '',
    help: 'aws: send every AWS call (Route53, STS; EC2 and ELBv2 for the PrivateLink controller) to this URL (emulators, tests).',
  },
  { name: 'aws-batch-change-size', kind: 'int', default: '1000', help: 'aws: most changes in one ChangeResourceRecordSets request.' },
  { name: 'aws-batch-change-size-bytes', kind: 'int', default: '32000', help: 'aws: most characters of record values in one request (UPSERT counts twice).' },
  { name: 'aws-batch-change-size-values', kind: 'int', default: '1000', help: 'aws: most record values in one request (UPSERT counts twice).' },
  { name: 'aws-batch-change-interval', kind: 'duration', default: '1s', help: 'aws: pause between two requests to the same zone.' },
  { name: 'aws-evaluate-target-health', kind: 'bool', default: true, help: 'aws: default of aws/evaluate-target-health for alias records.' },
  { name: 'aws-api-retries', kind: 'int', default: '3', help: 'aws: retries of a throttled or failed API call.' },
  { name: 'aws-prefer-cname', kind: 'bool', default: false, help: 'aws: write CNAMEs to AWS load balancers instead of alias records.' },
  { name: 'aws-requests-per-second', kind: 'int', default: '5', help: 'aws: client-side limit of API requests per second for the account (0 disables).' },
];
