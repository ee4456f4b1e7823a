import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { endpointToJSON } from '../../endpoint/endpoint.ts';
import type { JsonRecord } from './object.ts';
import { buildTranslateOptions } from './options.ts';
import type { TranslateOptions } from './options.ts';
import { routeStatusTargets, translateRoute } from './route.ts';

const A = 'external-dns.alpha.kubernetes.io/';

interface Ingress {
  router: string;
  canonical?: string;
  admitted?: 'True' | 'False' | 'none';
}

function ingressEntry(i: Ingress, host: string): JsonRecord {
  const conditions = i.admitted === 'none' ? [] : [{ type: 'Admitted', status: i.admitted ?? 'True' }];
  return { ...(host === '' ? {} : { host }), routerName: i.router, ...(i.canonical === undefined ? {} : { routerCanonicalHostname: i.canonical }), conditions };
}

/** `host` is what the routers report in status (and spec.host unless `specHost` says otherwise). */
function route(
  opts: { annotations?: Record<string, string>; labels?: Record<string, string>; host?: string; specHost?: string; ingress?: Ingress[] } = {},
): JsonRecord {
  const host = opts.host ?? 'app.example.org';
  const specHost = opts.specHost ?? host;
  return {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: { name: 'app', namespace: 'shop', annotations: opts.annotations ?? {}, labels: opts.labels ?? {} },
    spec: { ...(specHost === '' ? {} : { host: specHost }), to: { kind: 'Service', name: 'app' } },
    status: { ingress: (opts.ingress ?? [{ router: 'default', canonical: 'router-default.apps.example.net' }]).map((i) => ingressEntry(i, host)) },
  };
}

function names(obj: JsonRecord, options: TranslateOptions = {}, routerName = ''): string[] {
  return translateRoute(obj, options, routerName).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);
}

describe('OpenShift Route translation', () => {
  test('the admitting router host → CNAME to its canonical hostname, labelled route/<ns>/<name>', () => {
    const r = translateRoute(route(), {});
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.endpoints.map(endpointToJSON), [
      { dnsName: 'app.example.org', targets: ['router-default.apps.example.net'], recordType: 'CNAME', labels: { resource: 'route/shop/app' } },
    ]);
  });

  test('status targets: only admitted routers with a canonical hostname; the router name picks one', () => {
    const two: Ingress[] = [
      { router: 'default', canonical: 'router-default.apps.example.net' },
      { router: 'sharded', canonical: 'router-sharded.apps.example.net' },
    ];
    const table: { ingress: Ingress[]; routerName: string; want: string[] }[] = [
      { ingress: two, routerName: '', want: ['router-default.apps.example.net'] },
      { ingress: two, routerName: 'sharded', want: ['router-sharded.apps.example.net'] },
      { ingress: two, routerName: 'missing', want: [] },
      {
        ingress: [
          { router: 'default', canonical: 'a.example.net', admitted: 'False' },
          { router: 'b', canonical: 'b.example.net' },
        ],
        routerName: '',
        want: ['b.example.net'],
      },
      { ingress: [{ router: 'default', canonical: 'a.example.net', admitted: 'none' }], routerName: '', want: [] },
      { ingress: [{ router: 'default', canonical: 'a.example.net', admitted: 'False' }], routerName: 'default', want: [] },
      { ingress: [{ router: 'default' }, { router: 'b', canonical: 'b.example.net' }], routerName: '', want: ['b.example.net'] },
      { ingress: [], routerName: '', want: [] },
    ];
    for (const row of table) assert.deepEqual(routeStatusTargets(route({ ingress: row.ingress }), row.routerName), row.want, JSON.stringify(row));
    assert.deepEqual(names(route({ ingress: two }), {}, 'sharded'), ['app.example.org CNAME router-sharded.apps.example.net']);
    assert.deepEqual(names(route({ ingress: [{ router: 'default', canonical: 'a.example.net', admitted: 'False' }] })), []);
  });

  test('the target annotation overrides status; IPs give A records', () => {
    assert.deepEqual(names(route({ annotations: { [`${A}target`]: '192.0.2.1,lb.example.net' } })), [
      'app.example.org A 192.0.2.1',
      'app.example.org CNAME lb.example.net',
    ]);
    // As upstream, the name comes from an admitting router's status: without one there is no name.
    assert.deepEqual(names(route({ annotations: { [`${A}target`]: 'lb.example.net' }, ingress: [] })), []);
  });

  test('the name is the status host of the router that gives the target, not spec.host', () => {
    // A route created without spec.host gets its host from the router (OpenShift's generated names).
    assert.deepEqual(names(route({ specHost: '', host: 'app-shop.apps.example.net' })), ['app-shop.apps.example.net CNAME router-default.apps.example.net']);
    assert.deepEqual(names(route({ specHost: 'requested.example.org', host: 'app.example.org' })), ['app.example.org CNAME router-default.apps.example.net']);
  });

  test('hostname annotation adds names; --ignore-hostname-annotation drops only those', () => {
    const obj = route({ annotations: { [`${A}hostname`]: 'extra.example.org,app.example.org' } });
    assert.deepEqual(names(obj), ['app.example.org CNAME router-default.apps.example.net', 'extra.example.org CNAME router-default.apps.example.net']);
    assert.deepEqual(names(obj, { ignoreHostnameAnnotation: true }), ['app.example.org CNAME router-default.apps.example.net']);
  });

  test('TTL and set identifier from annotations', () => {
    const [ep] = translateRoute(route({ annotations: { [`${A}ttl`]: '60', [`${A}set-identifier`]: 'blue' } }), {}).endpoints;
    assert.equal(ep?.recordTTL, 60);
    assert.equal(ep?.setIdentifier, 'blue');
  });

  test('fqdn template is a fallback unless combined', () => {
    const template = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org' });
    assert.deepEqual(names(route(), template), ['app.example.org CNAME router-default.apps.example.net']);
    assert.deepEqual(names(route({ host: '' }), template), ['app.shop.example.org CNAME router-default.apps.example.net']);
    const combined = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org', combineFqdnAnnotation: true });
    assert.deepEqual(names(route(), combined), [
      'app.example.org CNAME router-default.apps.example.net',
      'app.shop.example.org CNAME router-default.apps.example.net',
    ]);
  });

  test('annotation and label filters, the controller annotation, other kinds', () => {
    const filters = buildTranslateOptions({ annotationFilter: 'dns=public', labelFilter: 'team=web' });
    assert.deepEqual(names(route(), filters), []);
    assert.deepEqual(names(route({ annotations: { dns: 'public' }, labels: { team: 'web' } }), filters), [
      'app.example.org CNAME router-default.apps.example.net',
    ]);
    assert.deepEqual(names(route({ annotations: { [`${A}controller`]: 'someone-else' } })), []);
    assert.deepEqual(names({ ...route(), apiVersion: 'example.com/v1' }), []);
    assert.deepEqual(names({ ...route(), kind: 'Ingress' }), []);
  });

  test('a route without host or targets publishes nothing; a bad name is a problem, not a throw', () => {
    assert.deepEqual(names(route({ host: '' })), []);
    assert.deepEqual(names(route({ ingress: [] })), []);
    const bad = translateRoute(route({ host: 'bad..name.example.org' }), {});
    assert.deepEqual(bad.endpoints, []);
    assert.equal(bad.problems.length, 1);
    assert.match(bad.problems[0]?.message ?? '', /shop\/app/);
  });
});
