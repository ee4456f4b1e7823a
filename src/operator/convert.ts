/**
 * v1alpha1 ⇄ v1beta1, as pure functions on plain objects, and the ConversionReview answer built
 * from them. v1alpha1 has no `provider.aws.assumeRole`: going down it is kept in an annotation and
 * going up it comes back, so a round trip through an old client loses nothing (the kubebuilder
 * "hub and spoke" rule).
 */
import { PRESERVED_ANNOTATION, V1ALPHA1, V1BETA1 } from './types.ts';

type Obj = Record<string, unknown>;

export class ConversionError extends Error {}

function rec(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function annotationsOf(obj: Obj): Record<string, string> {
  const meta = rec(obj['metadata']) ?? {};
  obj['metadata'] = meta;
  const ann = (rec(meta['annotations']) ?? {}) as Record<string, string>;
  meta['annotations'] = ann;
  return ann;
}

function dropEmptyAnnotations(obj: Obj): void {
  const meta = rec(obj['metadata']);
  if (meta !== undefined && Object.keys(rec(meta['annotations']) ?? {}).length === 0) delete meta['annotations'];
}

export function toV1alpha1(input: Obj): Obj {
  const obj = structuredClone(input);
  obj['apiVersion'] = V1ALPHA1;
  const aws = rec(rec(rec(obj['spec'])?.['provider'])?.['aws']);
  const role = aws?.['assumeRole'];
  if (aws !== undefined && role !== undefined) {
    delete aws['assumeRole'];
    annotationsOf(obj)[PRESERVED_ANNOTATION] = JSON.stringify({ 'spec.provider.aws.assumeRole': role });
  }
  return obj;
}

export function toV1beta1(input: Obj): Obj {
  const obj = structuredClone(input);
  obj['apiVersion'] = V1BETA1;
  const ann = annotationsOf(obj);
  const saved = ann[PRESERVED_ANNOTATION];
  delete ann[PRESERVED_ANNOTATION];
  if (saved !== undefined) {
    let fields: Obj;
    try {
      fields = rec(JSON.parse(saved)) ?? {};
    } catch {
      throw new ConversionError(`annotation ${PRESERVED_ANNOTATION} is not JSON`);
    }
    const role = fields['spec.provider.aws.assumeRole'];
    if (role !== undefined) {
      const spec = (rec(obj['spec']) ?? {}) as Obj;
      obj['spec'] = spec;
      const provider = (rec(spec['provider']) ?? {}) as Obj;
      spec['provider'] = provider;
      const aws = (rec(provider['aws']) ?? {}) as Obj;
      provider['aws'] = aws;
      // A v1alpha1 writer cannot have set it, so what was kept is still the truth.
      aws['assumeRole'] ??= role;
    }
  }
  dropEmptyAnnotations(obj);
  return obj;
}

export function convertTo(obj: Obj, desired: string): Obj {
  const from = obj['apiVersion'];
  if (from !== V1ALPHA1 && from !== V1BETA1) throw new ConversionError(`cannot convert from ${JSON.stringify(from)}`);
  if (desired === V1BETA1) return from === V1BETA1 ? structuredClone(obj) : toV1beta1(obj);
  if (desired === V1ALPHA1) return from === V1ALPHA1 ? structuredClone(obj) : toV1alpha1(obj);
  throw new ConversionError(`cannot convert to ${JSON.stringify(desired)}`);
}

/** The ConversionReview (apiextensions.k8s.io/v1) answer for a request body; never throws. */
export function answerConversionReview(body: string): string {
  let uid = '';
  let response: Obj;
  try {
    const review = rec(JSON.parse(body));
    const request = rec(review?.['request']);
    if (review?.['kind'] !== 'ConversionReview' || request === undefined) throw new ConversionError('expected a ConversionReview with a request');
    uid = typeof request['uid'] === 'string' ? request['uid'] : '';
    const desired = String(request['desiredAPIVersion'] ?? '');
    const objects = Array.isArray(request['objects']) ? request['objects'] : [];
    const convertedObjects = objects.map((o) => {
      const r = rec(o);
      if (r === undefined) throw new ConversionError('an object to convert is not an object');
      return convertTo(r, desired);
    });
    response = { uid, convertedObjects, result: { status: 'Success' } };
  } catch (err) {
    response = { uid, convertedObjects: [], result: { status: 'Failure', message: err instanceof Error ? err.message : String(err) } };
  }
  return JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response });
}
