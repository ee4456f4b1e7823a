/**
 * One Kubernetes object (plain JSON) → desired endpoints plus problems. Pure: no I/O, no logging,
 * so the manifest source and the Kubernetes sources share exactly the same semantics.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { ObjectRef, SourceProblem } from '../source.ts';
import { isControllerMismatch } from './annotations.ts';
import { DNSENDPOINT_KIND, dnsEndpointCandidates, isDNSEndpointApiVersion } from './dnsendpoint.ts';
import { TemplateExecutionError } from './fqdn-template.ts';
import { finalizeEndpoints, problemFor } from './hostname.ts';
import { INGRESS_KIND, ingressCandidates } from './ingress.ts';
import { asRecord, readMeta, refOf, resourceLabelOf, stringAt } from './object.ts';
import type { ObjectOrigin } from './object.ts';
import { TEMPLATE_FAILED_SUFFIX, templateOf } from './options.ts';
import type { KindContext, TranslateOptions } from './options.ts';
import { SERVICE_KIND, serviceCandidates, serviceTypeAllowed } from './service.ts';

export const SUPPORTED_KINDS = [SERVICE_KIND, INGRESS_KIND, DNSENDPOINT_KIND] as const;

/**
 * - translated: endpoints (possibly none) were computed;
 * - unsupported-kind: not an object this translator knows (ignored quietly);
 * - filtered: excluded by the annotation, label or service-type filter;
 * - controller-mismatch: the controller annotation names another controller;
 * - malformed: a supported kind without a name (reported as a problem).
 */
export type TranslateOutcome = 'translated' | 'unsupported-kind' | 'filtered' | 'controller-mismatch' | 'malformed';

export interface TranslateResult {
  outcome: TranslateOutcome;
  /** Undefined only when the input has no kind or name. */
  ref: ObjectRef | undefined;
  endpoints: Endpoint[];
  problems: SourceProblem[];
  /**
   * Set when the object could not be translated (a template failed on it): the `resource` label
   * of its records, which must be neither updated nor deleted until it translates again.
   */
  heldResource?: string;
}

/**
 * Kind plus API group, so that look-alikes (a Knative `Service`, someone's own `DNSEndpoint`) are
 * not mistaken for the objects external-dns reads. An empty apiVersion is accepted for callers
 * that only know the kind.
 */
export function isSupportedKind(apiVersion: string, kind: string): boolean {
  switch (kind) {
    case SERVICE_KIND:
      return apiVersion === '' || apiVersion === 'v1';
    case INGRESS_KIND:
      return apiVersion === '' || apiVersion.startsWith('networking.k8s.io/') || apiVersion.startsWith('extensions/');
    case DNSENDPOINT_KIND:
      return apiVersion === '' || isDNSEndpointApiVersion(apiVersion);
    default:
      return false;
  }
}

export function translateObject(input: unknown, options: TranslateOptions = {}, origin: ObjectOrigin = {}): TranslateResult {
  const obj = asRecord(input);
  const kind = stringAt(input, 'kind') ?? '';
  if (obj === undefined || !isSupportedKind(stringAt(input, 'apiVersion') ?? '', kind)) {
    const meta = readMeta(input);
    return { outcome: 'unsupported-kind', ref: meta === undefined ? undefined : refOf(meta, origin), endpoints: [], problems: [] };
  }
  const meta = readMeta(obj);
  if (meta === undefined) {
    const ref: ObjectRef = refOf({ kind, namespace: '', name: '<unnamed>' }, origin);
    return { outcome: 'malformed', ref, endpoints: [], problems: [problemFor(ref, 'metadata.name is missing; object ignored')] };
  }
  const ref = refOf(meta, origin);
  const empty = (outcome: TranslateOutcome): TranslateResult => ({ outcome, ref, endpoints: [], problems: [] });

  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return empty('filtered');
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return empty('filtered');
  if (kind === SERVICE_KIND && !serviceTypeAllowed(obj, options.serviceTypeFilter)) return empty('filtered');
  // external-dns checks the controller annotation on Services and Ingresses, not on DNSEndpoints.
  if (kind !== DNSENDPOINT_KIND && isControllerMismatch(meta.annotations, options.annotationPrefix)) return empty('controller-mismatch');

  const problems: SourceProblem[] = [];
  const ctx: KindContext = { obj, meta, ref, origin, options, template: templateOf(options, kind), problems };
  let candidates: Endpoint[];
  try {
    candidates = kind === SERVICE_KIND ? serviceCandidates(ctx) : kind === INGRESS_KIND ? ingressCandidates(ctx) : dnsEndpointCandidates(ctx);
  } catch (err) {
    // A template that fails on this object holds its records; otherwise defensive: translators
    // never throw on input they understand, but one odd object must neither stop a sync nor lose
    // its records.
    const message = err instanceof TemplateExecutionError ? `${err.message}${TEMPLATE_FAILED_SUFFIX}` : `could not be translated: ${(err as Error).message}`;
    problems.push(problemFor(ref, message));
    return { outcome: 'translated', ref, endpoints: [], problems, heldResource: resourceLabelOf(meta) };
  }
  const endpoints = finalizeEndpoints(ref, candidates, problems, options.keepEmptyTargets === true);
  return { outcome: 'translated', ref, endpoints, problems };
}
