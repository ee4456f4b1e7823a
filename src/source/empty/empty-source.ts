/**
 * `--source=empty`: external-dns's placeholder source, which desires no record. With the TXT
 * registry and `--policy=sync` it removes every record this owner holds in the provider's zones
 * (records of other owners are never touched); external-dns's users run it for exactly that, or to
 * try a provider's credentials and zones without any object.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Source } from '../source.ts';

export class EmptySource implements Source {
  readonly name = 'empty';

  /** Nothing to configure: the source reads no flag. */
  static fromConfig(): EmptySource {
    return new EmptySource();
  }

  endpoints(): Promise<Endpoint[]> {
    return Promise.resolve([]);
  }

  /** Nothing ever changes, so the handler is never called. */
  addEventHandler(_handler: () => void): () => void {
    return () => undefined;
  }
}
