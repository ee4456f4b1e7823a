/** The common shape of EC2's Describe operations: ids that must exist, filters, the caller's scope. */
import type { EmulatedRequest } from './emulator.ts';
import type { Owned } from './ec2-model.ts';
import { Ec2Fault } from './ec2-xml.ts';
import { filters, tagFilterMatches } from './query.ts';
import type { QueryFilter } from './query.ts';

/**
 * The caller's resources of one kind: by id (each one must exist, else `notFound`), narrowed by
 * the request's filters (`match` answers the kind's own filter names; tags are common).
 */
export function describe<T extends Owned>(
  all: Iterable<T>,
  req: EmulatedRequest,
  ids: readonly string[],
  notFound: [code: string, label: string],
  form: URLSearchParams,
  match: (r: T, f: QueryFilter) => boolean | undefined,
): T[] {
  const mine = [...all].filter((r) => r.account === req.account && r.region === req.region);
  for (const id of ids) {
    if (!mine.some((r) => r.id === id)) throw new Ec2Fault(notFound[0], `The ${notFound[1]} ID '${id}' does not exist`);
  }
  const fs = filters(form);
  return mine.filter(
    (r) =>
      (ids.length === 0 || ids.includes(r.id)) &&
      fs.every((f) => {
        const ok = tagFilterMatches(f, r.tags) ?? match(r, f);
        if (ok === undefined) throw new Ec2Fault('InvalidParameterValue', `The filter '${f.name}' is invalid`);
        return ok;
      }),
  );
}

export function next(token: string | undefined): string[] {
  return token === undefined ? [] : [`<nextToken>${token}</nextToken>`];
}
