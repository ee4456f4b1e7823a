import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ExternalDNS, ExternalDNSSpec } from './types.ts';
import { externalIdProblem, invalidMessage, roleArnProblem, validateExternalDNS } from './validate.ts';

const base: ExternalDNSSpec = {
  provider: { type: 'AWS', aws: { credentials: { name: 'aws' } } },
  source: { type: 'Service', fqdnTemplate: ['{{.Name}}.example.org'] },
};
const ed = (spec: ExternalDNSSpec): ExternalDNS => ({ metadata: { name: 'x' }, spec });
const messages = (spec: ExternalDNSSpec, openshift = false): string[] => validateExternalDNS(ed(spec), { openshift }).map((e) => e.message);

describe('IAM role ARNs', () => {
  const cases: [string, string | undefined][] = [
    ['arn:aws:iam::123456789012:role/dns', undefined],
    ['arn:aws-cn:iam::123456789012:role/dns', undefined],
    ['arn:aws-us-gov:iam::123456789012:role/team/dns-writer', undefined],
    ['arn:aws:iam::123456789012:role/a+b=c,d.e@f_g-h', undefined],
    ['arn:aws-iso:iam::123456789012:role/dns', undefined],
    ['arn:aws-eusc:iam::123456789012:role/dns', undefined],
    [
      'arn:aws-next:iam::123456789012:role/dns',
      'partition must be one of aws, aws-cn, aws-us-gov, aws-iso, aws-iso-b, aws-iso-e, aws-iso-f, aws-eusc, not "aws-next"',
    ],
    ['arn:aws:sts::123456789012:role/dns', 'service must be "iam", not "sts"'],
    ['arn:aws:iam:us-east-1:123456789012:role/dns', 'region must be empty for IAM, not "us-east-1"'],
    ['arn:aws:iam::12345678901:role/dns', 'account must be 12 digits, not "12345678901"'],
    ['arn:aws:iam::123456789012:user/dns', 'resource must be role/<name>, not "user/dns"'],
    ['arn:aws:iam::123456789012:role/', 'role name must be 1 to 64 characters of letters, digits and +=,.@_-, not ""'],
    ['arn:aws:iam::123456789012:role/bad name', 'role name must be 1 to 64 characters of letters, digits and +=,.@_-, not "bad name"'],
    ['arn:aws:iam::123456789012:role/' + 'r'.repeat(65), `role name must be 1 to 64 characters of letters, digits and +=,.@_-, not "${'r'.repeat(65)}"`],
    ['arn:aws:iam::123456789012', 'must be an ARN of the form arn:<partition>:iam::<12-digit account>:role/<name>'],
    ['role/dns', 'must be an ARN of the form arn:<partition>:iam::<12-digit account>:role/<name>'],
  ];
  for (const [arn, want] of cases) test(arn, () => assert.equal(roleArnProblem(arn), want));

  test('external ids', () => {
    assert.equal(externalIdProblem('ab'), undefined);
    assert.equal(externalIdProblem('a:b/c=d,e.f@g-h_i+j'), undefined);
    assert.equal(externalIdProblem('x'.repeat(1224)), undefined);
    assert.equal(externalIdProblem('x'), 'must be 2 to 1224 characters of letters, digits and +=,.@:/_-');
    assert.equal(externalIdProblem('x'.repeat(1225)), 'must be 2 to 1224 characters of letters, digits and +=,.@:/_-');
    assert.equal(externalIdProblem('has space'), 'must be 2 to 1224 characters of letters, digits and +=,.@:/_-');
  });
});

describe('validateExternalDNS', () => {
  test('a valid object has no errors; assumeRole without credentials only on OpenShift (as upstream)', () => {
    assert.deepEqual(messages(base), []);
    const roleOnly: ExternalDNSSpec = {
      ...base,
      provider: { type: 'AWS', aws: { assumeRole: { arn: 'arn:aws:iam::123456789012:role/dns', externalID: 'abc' } } },
    };
    assert.deepEqual(messages(roleOnly, true), []);
    assert.deepEqual(messages(roleOnly), [
      'spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS',
    ]);
    assert.deepEqual(messages({ ...base, source: { type: 'Service', hostnameAnnotation: 'Allow' } }), []);
  });

  test('every problem at once, with field paths and exact messages', () => {
    const got = messages({
      domains: [{ filterType: 'Include', matchType: 'Exact' }, { matchType: 'Pattern', pattern: '(' }, { matchType: 'Pattern' }],
      provider: { type: 'AWS', aws: { assumeRole: { arn: 'arn:aws:iam::123:role/dns', externalID: 'x' } } },
      source: { type: 'Service' },
      zones: Array.from({ length: 11 }, (_, i) => `Z${i}`),
      intervalSeconds: 30,
    });
    assert.deepEqual(got, [
      'spec.domains[0].name: Required value: name is required when matchType is Exact',
      'spec.domains[1].pattern: Invalid value: "(": does not compile: Invalid regular expression: /(/: Unterminated group',
      'spec.domains[2].pattern: Required value: pattern is required when matchType is Pattern',
      'spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS',
      'spec.provider.aws.assumeRole.externalID: Invalid value: "x": must be 2 to 1224 characters of letters, digits and +=,.@:/_-',
      'spec.source.fqdnTemplate: Required value: fqdnTemplate is required when hostnameAnnotation is Ignore',
      'spec.zones: Too many: 11: must have at most 10 items',
      'spec.intervalSeconds: Invalid value: 30: must be a whole number of seconds from 60 to 3600',
    ]);
  });

  test('credentials are required where the platform does not supply them', () => {
    assert.deepEqual(messages({ ...base, provider: { type: 'AWS' } }), [
      'spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS',
    ]);
    assert.deepEqual(messages({ ...base, provider: { type: 'AWS' } }, true), []);
    assert.deepEqual(messages({ ...base, provider: { type: 'GCP', gcp: { project: 'p' } } }), [
      'spec.provider.gcp.credentials.name: Required value: credentials secret must be specified when provider type is GCP',
    ]);
    assert.deepEqual(messages({ ...base, provider: { type: 'Azure' } }), [
      'spec.provider.azure.configFile.name: Required value: config file name must be specified when provider type is Azure',
    ]);
    assert.deepEqual(messages({ ...base, provider: { type: 'Azure' } }, true), []);
    assert.deepEqual(messages({ ...base, provider: { type: 'PowerDNS', powerDNS: { server: 'http://pdns:8081' } } }), [
      'spec.provider.powerDNS.apiKey.name: Required value: an API key Secret is required for PowerDNS',
    ]);
    assert.deepEqual(messages({ ...base, provider: { type: 'AWS', aws: { credentials: { name: 'c' }, assumeRole: {} } } }), [
      'spec.provider.aws.assumeRole.arn: Required value: the ARN of the role to assume is required',
    ]);
  });

  test('types Hostwarden cannot run are refused by name', () => {
    assert.deepEqual(messages({ ...base, provider: { type: 'Infoblox' } }), [
      'spec.provider.type: Unsupported value: "Infoblox": Hostwarden has no provider for it; supported values: "AWS", "GCP", "Azure", "RFC2136", "PowerDNS", "Embedded"',
    ]);
    assert.deepEqual(messages({ ...base, source: JSON.parse('{"type":"Gateway","fqdnTemplate":["x"]}') as ExternalDNSSpec['source'] }), [
      'spec.source.type: Unsupported value: "Gateway": supported values: "Service", "OpenShiftRoute", "CRD"',
    ]);
    // As upstream, routes have spec.host: no fqdnTemplate needed when the hostname annotation is ignored.
    assert.deepEqual(messages({ ...base, source: { type: 'OpenShiftRoute', hostnameAnnotation: 'Ignore' } }), []);
    assert.deepEqual(messages({ ...base, source: { type: 'OpenShiftRoute', openshiftRouteOptions: { routerName: 'default' } } }), []);
    assert.deepEqual(messages({ source: base.source ?? {} }), ['spec.provider.type: Required value: the provider type is required']);
    assert.deepEqual(messages({ ...base, source: { type: 'Service', service: { serviceType: ['Headless'] }, fqdnTemplate: ['x'] } }), [
      'spec.source.service.serviceType[0]: Unsupported value: "Headless": supported values: "ClusterIP", "NodePort", "LoadBalancer", "ExternalName"',
    ]);
  });

  test("the aggregated message is worded like the API server's", () => {
    const errs = validateExternalDNS(ed({ ...base, provider: { type: 'AWS' }, source: { type: 'CRD' } }), { openshift: false });
    assert.equal(
      invalidMessage('x', errs),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: [spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS, spec.source.fqdnTemplate: Required value: fqdnTemplate is required when hostnameAnnotation is Ignore]',
    );
  });
});
