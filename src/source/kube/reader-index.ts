/**
 * Which primary objects read which secondary object (Hosts → the Service they name): a change of
 * the secondary object re-translates only its readers, not every primary object.
 */
export class ReaderIndex {
  /** Secondary key → keys of the primary objects whose last translation read it. */
  private readonly readers = new Map<string, Set<string>>();
  private readonly readOf = new Map<string, string>();

  /** Records what `reader` read in its latest translation (undefined: nothing). */
  set(reader: string, read: string | undefined): void {
    this.forget(reader);
    if (read === undefined) return;
    this.readOf.set(reader, read);
    this.readers.set(read, (this.readers.get(read) ?? new Set()).add(reader));
  }

  /** The readers of `read`; those `exists` no longer knows are forgotten (deleted primaries). */
  readersOf(read: string, exists: (reader: string) => boolean): string[] {
    const keys = [...(this.readers.get(read) ?? [])];
    for (const k of keys) if (!exists(k)) this.forget(k);
    return keys.filter(exists);
  }

  private forget(reader: string): void {
    const read = this.readOf.get(reader);
    if (read === undefined) return;
    this.readOf.delete(reader);
    const set = this.readers.get(read);
    set?.delete(reader);
    if (set?.size === 0) this.readers.delete(read);
  }
}
