/**
 * Parses API server paths into (group, version, namespace, resource, name, subresource), the way
 * kube-apiserver's request-info resolver does, legacy `/watch/` prefix included.
 */

export interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  plural: string;
  name: string;
  subresource: string;
  legacyWatch: boolean;
}

export function parseResourcePath(path: string): ResourcePath | undefined {
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // `/namespaces/x` and `/namespaces/x/status` are the Namespace object itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  return { group, version, namespace, plural: rest[0]!, name: rest[1] ?? '', subresource: rest[2] ?? '', legacyWatch };
}
