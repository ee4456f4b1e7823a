import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { answerConversionReview, convertTo, toV1alpha1, toV1beta1 } from './convert.ts';
import { PRESERVED_ANNOTATION, V1ALPHA1, V1BETA1 } from './types.ts';

const beta = {
  apiVersion: V1BETA1,
  kind: 'ExternalDNS',
  metadata: { name: 'x', annotations: { keep: 'me' } },
  spec: {
    provider: { type: 'AWS', aws: { credentials: { name: 'c' }, assumeRole: { arn: 'arn:aws:iam::123456789012:role/dns', externalID: 'ext' } } },
    source: { type: 'Service' },
  },
};

describe('v1alpha1 ⇄ v1beta1', () => {
  test('down-conversion moves assumeRole into an annotation; up-conversion restores it exactly', () => {
    const alpha = toV1alpha1(beta);
    assert.equal(alpha['apiVersion'], V1ALPHA1);
    assert.deepEqual((alpha['spec'] as typeof beta.spec).provider.aws, { credentials: { name: 'c' } });
    assert.equal(
      (alpha['metadata'] as typeof beta.metadata).annotations[PRESERVED_ANNOTATION as 'keep'],
      '{"spec.provider.aws.assumeRole":{"arn":"arn:aws:iam::123456789012:role/dns","externalID":"ext"}}',
    );
    assert.deepEqual(toV1beta1(alpha), beta);
    assert.deepEqual(beta.spec.provider.aws.assumeRole.externalID, 'ext', 'input untouched');
  });

  test('objects without v1beta1-only fields convert without annotations', () => {
    const plain = { apiVersion: V1ALPHA1, kind: 'ExternalDNS', metadata: { name: 'y' }, spec: { provider: { type: 'GCP' } } };
    assert.deepEqual(toV1alpha1(toV1beta1(plain)), plain);
    assert.deepEqual(convertTo(plain, V1ALPHA1), plain);
  });

  test('ConversionReview answers: success keeps the uid; an unknown version fails with a message', () => {
    const ok = JSON.parse(
      answerConversionReview(
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'u1', desiredAPIVersion: V1ALPHA1, objects: [beta] },
        }),
      ),
    );
    assert.equal(ok.response.uid, 'u1');
    assert.deepEqual(ok.response.result, { status: 'Success' });
    assert.deepEqual(ok.response.convertedObjects, [toV1alpha1(beta)]);
    const bad = JSON.parse(
      answerConversionReview(
        JSON.stringify({ kind: 'ConversionReview', request: { uid: 'u2', desiredAPIVersion: 'externaldns.olm.openshift.io/v2', objects: [beta] } }),
      ),
    );
    assert.deepEqual(bad.response, {
      uid: 'u2',
      convertedObjects: [],
      result: { status: 'Failure', message: 'cannot convert to "externaldns.olm.openshift.io/v2"' },
    });
    assert.equal(JSON.parse(answerConversionReview('nope')).response.result.status, 'Failure');
  });
});
