import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildOperand, copiedSecret, operandArgs, secretHash, SECRET_HASH_ANNOTATION } from './operand.ts';
import type { OperandSettings } from './operand.ts';
import type { ExternalDNS, ExternalDNSSpec } from './types.ts';

const settings: OperandSettings = { namespace: 'hostwarden', image: 'img:1', platform: { openshift: false } };
const ed = (spec: ExternalDNSSpec, name = 'sample'): ExternalDNS => ({ metadata: { name, uid: 'uid-1', generation: 1 }, spec });
const svc: ExternalDNSSpec['source'] = { type: 'Service', fqdnTemplate: ['{{.Name}}.example.org'] };
const aws: ExternalDNSSpec['provider'] = { type: 'AWS', aws: { credentials: { name: 'aws' } } };
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const COMMON = [
  '--metrics-address=127.0.0.1:7979',
  '--txt-owner-id=external-dns-sample',
  '--provider=aws',
  '--source=service',
  '--policy=sync',
  '--registry=txt',
  '--txt-prefix=external-dns-',
  '--leader-elect=false',
  '--status-externaldns=sample',
];

describe('operand args: each spec field', () => {
  const cases: [string, ExternalDNSSpec, string[]][] = [
    [
      'defaults: LoadBalancer services, hostname annotation ignored',
      { provider: { type: 'AWS' }, source: svc },
      [...COMMON, '--service-type-filter=LoadBalancer', '--ignore-hostname-annotation', '--fqdn-template={{.Name}}.example.org'],
    ],
    [
      'domains: exact names and patterns, include and exclude',
      {
        provider: { type: 'AWS' },
        source: { ...svc, hostnameAnnotation: 'Allow', fqdnTemplate: [] },
        domains: [
          { name: 'example.org' },
          { filterType: 'Exclude', name: 'internal.example.org' },
          { matchType: 'Pattern', pattern: '^a' },
          { matchType: 'Pattern', pattern: 'b$' },
          { filterType: 'Exclude', matchType: 'Pattern', pattern: 'x' },
        ],
      },
      [
        '--domain-filter=example.org',
        '--exclude-domains=internal.example.org',
        '--regex-domain-filter=(^a)|(b$)',
        '--regex-domain-exclusion=x',
        ...COMMON,
        '--service-type-filter=LoadBalancer',
      ],
    ],
    [
      'source: namespace, labels, ClusterIP publishes internal services, several templates, interval',
      {
        provider: { type: 'AWS' },
        intervalSeconds: 120,
        source: {
          type: 'Service',
          namespace: 'apps',
          labelFilter: {
            matchLabels: { team: 'a' },
            matchExpressions: [
              { key: 'tier', operator: 'In', values: ['web', 'api'] },
              { key: 'legacy', operator: 'DoesNotExist' },
            ],
          },
          service: { serviceType: ['ClusterIP', 'NodePort'] },
          fqdnTemplate: ['{{.Name}}.a.org', '{{.Name}}.b.org'],
        },
      },
      [
        ...COMMON,
        '--namespace=apps',
        '--label-filter=team=a,tier in (web,api),!legacy',
        '--service-type-filter=ClusterIP',
        '--service-type-filter=NodePort',
        '--publish-internal-services',
        '--ignore-hostname-annotation',
        '--fqdn-template={{.Name}}.a.org,{{.Name}}.b.org',
        '--interval=120s',
      ],
    ],
    [
      'AWS assume role with external id',
      { provider: { type: 'AWS', aws: { assumeRole: { arn: 'arn:aws:iam::123456789012:role/dns', externalID: 'ext' } } }, source: svc },
      [
        ...COMMON,
        '--service-type-filter=LoadBalancer',
        '--ignore-hostname-annotation',
        '--fqdn-template={{.Name}}.example.org',
        '--aws-assume-role=arn:aws:iam::123456789012:role/dns',
        '--aws-assume-role-external-id=ext',
      ],
    ],
    [
      'CRD source with its kind',
      { provider: { type: 'AWS' }, source: { type: 'CRD', hostnameAnnotation: 'Allow', crd: { apiVersion: 'dns.example/v1', kind: 'Record' } } },
      [...COMMON.map((a) => (a === '--source=service' ? '--source=crd' : a)), '--crd-source-apiversion=dns.example/v1', '--crd-source-kind=Record'],
    ],
    [
      'OpenShiftRoute source with a router name',
      { provider: { type: 'AWS' }, source: { type: 'OpenShiftRoute', hostnameAnnotation: 'Allow', openshiftRouteOptions: { routerName: 'default' } } },
      [...COMMON.map((a) => (a === '--source=service' ? '--source=openshift-route' : a)), '--openshift-router-name=default'],
    ],
    [
      'OpenShiftRoute source without a router name, hostname annotation ignored',
      { provider: { type: 'AWS' }, source: { type: 'OpenShiftRoute', openshiftRouteOptions: {} } },
      [...COMMON.map((a) => (a === '--source=service' ? '--source=openshift-route' : a)), '--ignore-hostname-annotation'],
    ],
  ];
  for (const [name, spec, want] of cases) test(name, () => assert.deepEqual(operandArgs(ed(spec), settings, 0, '', false), want));

  test('GCP project (from the spec, or from the platform on OpenShift) and key file', () => {
    const spec: ExternalDNSSpec = {
      provider: { type: 'GCP', gcp: { project: 'mine', credentials: { name: 'g' } } },
      source: { ...svc, hostnameAnnotation: 'Allow' },
    };
    assert.deepEqual(operandArgs(ed(spec), settings, 0, '', true).slice(-2), [
      '--google-project=mine',
      '--google-key-file=/etc/hostwarden/credentials/gcp-credentials.json',
    ]);
    assert.deepEqual(operandArgs(ed(spec), { ...settings, platform: { openshift: true, gcpProject: 'cluster-proj' } }, 0, '', true).slice(-2), [
      '--google-project=cluster-proj',
      '--google-key-file=/etc/hostwarden/credentials/service_account.json',
    ]);
  });

  test('Azure: config file; a private DNS zone id switches the provider', () => {
    const spec: ExternalDNSSpec = { provider: { type: 'Azure', azure: { configFile: { name: 'az' } } }, source: svc };
    const args = operandArgs(ed(spec), settings, 1, '/subscriptions/s/resourceGroups/r/providers/Microsoft.Network/privateDnsZones/z.org', true);
    assert.ok(args.includes('--provider=azure-private-dns'));
    assert.ok(args.includes('--metrics-address=127.0.0.1:7980'));
    assert.ok(args.includes('--azure-config-file=/etc/hostwarden/credentials/azure.json'));
    assert.ok(args.includes('--txt-wildcard-replacement=any'));
  });
});

describe('operand objects', () => {
  test('one container per zone with its own metrics port and zone filter', () => {
    const o = buildOperand(ed({ provider: aws, source: svc, zones: ['Z1', 'Z2'] }), settings, { data: { aws_access_key_id: 'QQ==' } });
    const containers = (o.deployment as Obj)['spec'].template.spec.containers as Obj[];
    assert.deepEqual(
      containers.map((c) => c['name']),
      ['hostwarden-0', 'hostwarden-1'],
    );
    assert.ok(containers[1]?.['args'].includes('--zone-id-filter=Z2'));
    assert.ok(containers[1]?.['args'].includes('--metrics-address=127.0.0.1:7980'));
    assert.equal(containers[0]?.['args'][0], 'run');
    assert.deepEqual(o.zones, ['Z1', 'Z2']);
  });

  test('AWS Secret: mounted, its hash in the pod template; new content, new hash', () => {
    const one = { data: { aws_access_key_id: 'QUtJRA==', aws_secret_access_key: 'czE=' } };
    const two = { data: { aws_access_key_id: 'QUtJRA==', aws_secret_access_key: 'czI=' } };
    const a = buildOperand(ed({ provider: aws, source: svc }), settings, one);
    const b = buildOperand(ed({ provider: aws, source: svc }), settings, two);
    const tpl = (o: Obj): Obj => o['spec'].template;
    assert.equal(tpl(a.deployment)['metadata'].annotations[SECRET_HASH_ANNOTATION], secretHash(one));
    assert.notEqual(secretHash(one), secretHash(two));
    assert.deepEqual(tpl(a.deployment)['spec'].volumes, [
      { name: 'tmp', emptyDir: {} },
      { name: 'credentials', secret: { secretName: 'hostwarden-sample-credentials' } },
      // As upstream: every AWS operand with a Secret gets the token an STS credentials file reads.
      { name: 'bound-sa-token', projected: { sources: [{ serviceAccountToken: { audience: 'openshift', expirationSeconds: 3600, path: 'token' } }] } },
    ]);
    assert.deepEqual(tpl(a.deployment)['spec'].containers[0].volumeMounts, [
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'credentials', mountPath: '/etc/hostwarden/credentials', readOnly: true },
      { name: 'bound-sa-token', mountPath: '/var/run/secrets/openshift/serviceaccount', readOnly: true },
    ]);
    assert.ok(tpl(b.deployment)['spec'].containers[0].args.includes('--aws-shared-credentials-file=/etc/hostwarden/credentials/credentials'));
    const copy = copiedSecret(ed({ provider: aws, source: svc }), settings, one) as Obj;
    assert.equal(Buffer.from(copy['data'].credentials, 'base64').toString(), '[default]\naws_access_key_id = AKID\naws_secret_access_key = s1\n');
    assert.equal(copy['metadata'].namespace, 'hostwarden');
  });

  test('proxy variables and the trusted CA bundle are passed through', () => {
    const o = buildOperand(
      ed({ provider: { type: 'AWS' }, source: svc }),
      { ...settings, proxy: { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.cluster.local' }, trustedCAConfigMap: 'trusted-ca' },
      undefined,
    );
    const spec = (o.deployment as Obj)['spec'].template.spec;
    assert.deepEqual(spec.containers[0].env, [
      { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
      { name: 'NO_PROXY', value: '.cluster.local' },
      { name: 'NODE_EXTRA_CA_CERTS', value: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem' },
    ]);
    assert.deepEqual(spec.volumes.slice(1), [
      { name: 'trusted-ca', configMap: { name: 'trusted-ca', items: [{ key: 'ca-bundle.crt', path: 'tls-ca-bundle.pem' }] } },
    ]);
    assert.equal(o.secret, undefined);
  });

  test('RBAC follows the source; status patch only on its own object', () => {
    const crd = buildOperand(ed({ provider: { type: 'AWS' }, source: { type: 'CRD', hostnameAnnotation: 'Allow' } }), settings, undefined);
    assert.deepEqual(crd.clusterRole.rules.slice(0, 2), [
      { apiGroups: ['externaldns.k8s.io'], resources: ['dnsendpoints'], verbs: ['list', 'watch'] },
      { apiGroups: ['externaldns.k8s.io'], resources: ['dnsendpoints/status'], verbs: ['patch'] },
    ]);
    const service = buildOperand(ed({ provider: { type: 'AWS' }, source: svc }), settings, undefined);
    assert.deepEqual(service.clusterRole.rules[0], { apiGroups: [''], resources: ['services', 'nodes'], verbs: ['list', 'watch'] });
    const route = buildOperand(ed({ provider: { type: 'AWS' }, source: { type: 'OpenShiftRoute' } }), settings, undefined);
    assert.deepEqual(route.clusterRole.rules[0], { apiGroups: ['route.openshift.io'], resources: ['routes'], verbs: ['list', 'watch'] });
    assert.deepEqual(service.clusterRoleBinding.subjects, [{ kind: 'ServiceAccount', name: 'hostwarden-sample', namespace: 'hostwarden' }]);
  });

  test('PowerDNS and RFC2136 secrets become EXTERNAL_DNS_* variables', () => {
    const p = buildOperand(ed({ provider: { type: 'PowerDNS', powerDNS: { server: 'http://pdns:8081', apiKey: { name: 'k' } } }, source: svc }), settings, {
      data: { 'api-key': 'eA==' },
    });
    assert.deepEqual((p.deployment as Obj)['spec'].template.spec.containers[0].env, [
      { name: 'EXTERNAL_DNS_PDNS_API_KEY', valueFrom: { secretKeyRef: { name: 'hostwarden-sample-credentials', key: 'api-key' } } },
    ]);
    const r = buildOperand(ed({ provider: { type: 'RFC2136', rfc2136: { host: 'ns1', zone: 'example.org' } }, source: svc }), settings, undefined);
    assert.ok((r.deployment as Obj)['spec'].template.spec.containers[0].args.includes('--rfc2136-insecure'));
  });
});
