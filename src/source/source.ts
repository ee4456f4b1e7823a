/**
 * The source port: turns objects (manifest files, Kubernetes resources) into desired endpoints.
 * Problems with single objects are reported through `onProblem` and never fail the whole list.
 */
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';

export interface Source {
  readonly name: string;
  /** Desired endpoints now. Throws SourceError only when nothing could be read at all. */
  endpoints(): Promise<Endpoint[]>;
  /** Registers a callback fired when the source's objects may have changed; returns an unsubscribe function. */
  addEventHandler(handler: () => void): () => void;
  close?(): Promise<void>;
  /**
   * Endpoints the objects ask for that are rejected as invalid right now (as of the last
   * `endpoints()`), one entry each: the external_dns_source_invalid_endpoints gauge.
   */
  invalidEndpoints?(): InvalidEndpoint[];
  /**
   * `resource` labels (`service/<namespace>/<name>`, as the registry stores them) of objects that
   * could not be translated (a template failed on them) and have no last good endpoints, as of the
   * last `endpoints()`: the planner neither updates nor deletes records carrying one of them.
   * Wrappers pass it through; a source without it holds nothing.
   */
  heldResources?(): ReadonlySet<string>;
}

/** One endpoint an object asked for that failed validation. */
export interface InvalidEndpoint {
  recordType: RecordType;
  /** The source that read the object (`service`, `ingress`, `crd`, `manifest`…). */
  sourceType: string;
}

/** Where an endpoint or a problem came from, for logs, events and `explain`. */
export interface ObjectRef {
  kind: string;
  namespace: string;
  name: string;
  /** File and line for objects read from manifests. */
  file?: string;
  line?: number;
}

export function describeRef(ref: ObjectRef): string {
  const id = ref.namespace === '' ? `${ref.kind}/${ref.name}` : `${ref.kind}/${ref.namespace}/${ref.name}`;
  if (ref.file === undefined) return id;
  return ref.line === undefined ? `${id} (${ref.file})` : `${id} (${ref.file}:${ref.line})`;
}

export interface SourceProblem {
  ref?: ObjectRef;
  file?: string;
  line?: number;
  message: string;
  /** Set when the problem is an endpoint rejected as invalid: its record type. */
  recordType?: RecordType;
}

export type ProblemReporter = (problem: SourceProblem) => void;
