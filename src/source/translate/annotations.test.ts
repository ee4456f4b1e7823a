import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_ANNOTATION_PREFIX,
  annotationPrefixes,
  annotationValue,
  isControllerMismatch,
  parseAnnotations,
  parseGoDurationSeconds,
  parseTTL,
  providerSpecificFromAnnotations,
  splitHostnames,
} from './annotations.ts';
import { buildTranslateOptions } from './options.ts';

const A = 'external-dns.alpha.kubernetes.io/';
const S = 'external-dns.kubernetes.io/';

describe('annotations', () => {
  test('both prefixes are read; the stable prefix wins when both are set', () => {
    assert.equal(annotationValue({ [`${A}hostname`]: 'a.example.org' }, 'hostname'), 'a.example.org');
    assert.equal(annotationValue({ [`${S}hostname`]: 'b.example.org' }, 'hostname'), 'b.example.org');
    assert.equal(annotationValue({ [`${A}hostname`]: 'a', [`${S}hostname`]: 'b' }, 'hostname'), 'b');
    assert.equal(annotationValue({}, 'hostname'), undefined);
  });

  test('hostnames are comma separated with spaces removed', () => {
    assert.deepEqual(splitHostnames(' a.example.org, b.example.org ,,c.example.org.'), ['a.example.org', 'b.example.org', 'c.example.org.']);
    assert.deepEqual(splitHostnames(undefined), []);
  });

  test('TTL accepts seconds and Go durations', () => {
    assert.equal(parseTTL('60'), 60);
    assert.equal(parseTTL('1m'), 60);
    assert.equal(parseTTL('1h30m'), 5400);
    assert.equal(parseTTL('1.5s'), 1);
    assert.equal(parseTTL('90s'), 90);
    assert.equal(parseTTL('2147483647'), 2147483647);
    for (const bad of ['0', '-5', 'abc', '10x', '', '1m-', '2147483648', '500ms']) assert.throws(() => parseTTL(bad), bad);
  });

  test('Go duration grammar', () => {
    assert.equal(parseGoDurationSeconds('1h'), 3600);
    assert.equal(parseGoDurationSeconds('.5m'), 30);
    assert.equal(parseGoDurationSeconds('2m3s'), 123);
    assert.equal(parseGoDurationSeconds('5'), undefined);
    assert.equal(parseGoDurationSeconds('m'), undefined);
  });

  test('an invalid ttl is a problem and falls back to the default', () => {
    const problems: string[] = [];
    const parsed = parseAnnotations({ [`${A}ttl`]: 'soon' }, 300, (m) => problems.push(m));
    assert.equal(parsed.ttl, 300);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /soon/);
    assert.equal(parseAnnotations({}, 0, () => assert.fail('no problem expected')).ttl, 0);
    assert.equal(parseAnnotations({ [`${S}ttl`]: '2m' }, 0, () => assert.fail('no problem expected')).ttl, 120);
  });

  test('targets lose a trailing dot; set identifier and controller are read', () => {
    const parsed = parseAnnotations(
      { [`${A}target`]: '192.0.2.1, lb.example.net.', [`${S}set-identifier`]: 'eu', [`${A}controller`]: 'dns-controller' },
      0,
      () => undefined,
    );
    assert.deepEqual(parsed.targets, ['192.0.2.1', 'lb.example.net']);
    assert.equal(parsed.setIdentifier, 'eu');
    assert.equal(parsed.controller, 'dns-controller');
  });

  test('controller mismatch', () => {
    assert.equal(isControllerMismatch({}), false);
    assert.equal(isControllerMismatch({ [`${A}controller`]: 'dns-controller' }), false);
    assert.equal(isControllerMismatch({ [`${A}controller`]: 'other' }), true);
    assert.equal(isControllerMismatch({ [`${S}controller`]: 'other' }), true);
  });

  test('provider-specific annotations use external-dns names', () => {
    const props = providerSpecificFromAnnotations({
      [`${A}aws-weight`]: '10',
      [`${S}aws-region`]: 'eu-west-1',
      [`${A}alias`]: 'true',
      [`${A}cloudflare-proxied`]: 'true',
      [`${S}webhook-foo`]: 'bar',
      [`${A}scw-thing`]: 'x',
      [`${A}hostname`]: 'ignored.example.org',
      'other.io/aws-weight': 'ignored',
    });
    assert.deepEqual(props, [
      { name: 'alias', value: 'true' },
      { name: 'aws/region', value: 'eu-west-1' },
      { name: 'aws/weight', value: '10' },
      { name: `${A}cloudflare-proxied`, value: 'true' },
      { name: 'scw/thing', value: 'x' },
      { name: 'webhook/foo', value: 'bar' },
    ]);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${A}alias`]: 'false' }), []);
  });

  test('--annotation-prefix: the default reads both prefixes, any other prefix is read alone', () => {
    const C = 'internal.example.com/';
    const annotations = { [`${A}hostname`]: 'alpha.example.org', [`${C}hostname`]: 'custom.example.org', [`${C}ttl`]: '60', [`${A}ttl`]: '10' };
    assert.deepEqual(annotationPrefixes(undefined), [S, A]);
    assert.deepEqual(annotationPrefixes(DEFAULT_ANNOTATION_PREFIX), [S, A]);
    assert.equal(DEFAULT_ANNOTATION_PREFIX, S);
    assert.deepEqual(annotationPrefixes(C), [C]);
    assert.deepEqual(annotationPrefixes(A), [A]);
    assert.equal(annotationValue(annotations, 'hostname', C), 'custom.example.org');
    assert.equal(annotationValue({ [`${S}hostname`]: 'x' }, 'hostname', C), undefined);
    const parsed = parseAnnotations(annotations, 0, () => assert.fail('no problem expected'), C);
    assert.deepEqual(parsed.hostnames, ['custom.example.org']);
    assert.equal(parsed.ttl, 60);
    assert.deepEqual(parseAnnotations(annotations, 0, () => undefined).hostnames, ['alpha.example.org']);
    assert.equal(isControllerMismatch({ [`${A}controller`]: 'other' }, C), false);
    assert.equal(isControllerMismatch({ [`${C}controller`]: 'other' }, C), true);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${C}aws-weight`]: '5', [`${A}aws-weight`]: '1', [`${C}cloudflare-proxied`]: 'true' }, C), [
      { name: 'aws/weight', value: '5' },
      { name: `${C}cloudflare-proxied`, value: 'true' },
    ]);
  });

  test('alias keeps true, A and AAAA; record-type is passed on as is', () => {
    for (const value of ['true', 'A', 'AAAA']) assert.deepEqual(providerSpecificFromAnnotations({ [`${S}alias`]: value }), [{ name: 'alias', value }]);
    for (const value of ['false', 'a', 'yes', '']) assert.deepEqual(providerSpecificFromAnnotations({ [`${S}alias`]: value }), [], value);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${A}record-type`]: 'ptr' }), [{ name: 'record-type', value: 'ptr' }]);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${S}record-type`]: '' }), [{ name: 'record-type', value: '' }]);
  });

  test('azure-tags becomes azure/tags as written (the azure provider parses it); coredns-* becomes coredns/*', () => {
    assert.deepEqual(providerSpecificFromAnnotations({ [`${S}azure-tags`]: 'environment=production, app=myapp ' }), [
      { name: 'azure/tags', value: 'environment=production, app=myapp ' },
    ]);
    // Under both prefixes, the stable one wins, as for every key.
    assert.deepEqual(providerSpecificFromAnnotations({ [`${A}azure-tags`]: 'a=1', [`${S}azure-tags`]: 'b=2' }), [{ name: 'azure/tags', value: 'b=2' }]);
    const C = 'internal.example.com/';
    assert.deepEqual(providerSpecificFromAnnotations({ [`${C}azure-tags`]: 'a=1', [`${S}azure-tags`]: 'b=2' }, C), [{ name: 'azure/tags', value: 'a=1' }]);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${S}azure-tagsx`]: 'a=1' }), []);
    assert.deepEqual(providerSpecificFromAnnotations({ [`${S}coredns-group`]: 'g1' }), [{ name: 'coredns/group', value: 'g1' }]);
  });

  test("--annotation-prefix is checked as external-dns checks it: not empty, ending in '/'", () => {
    assert.throws(() => buildTranslateOptions({ annotationPrefix: '' }), { message: '--annotation-prefix cannot be empty' });
    assert.throws(() => buildTranslateOptions({ annotationPrefix: 'custom.io' }), { message: "--annotation-prefix must end with '/'" });
    assert.equal(buildTranslateOptions({ annotationPrefix: 'custom.io/' }).annotationPrefix, 'custom.io/');
  });
});
