/**
 * A source that reads Kubernetes manifests (Service, Ingress, DNSEndpoint) from a directory tree,
 * so Hostwarden can run without a cluster and tests can drive it with plain files.
 *
 * Parsing is incremental, in two steps. Each file's endpoints are kept with the stat() stamp of
 * the version they came from (mtime, ctime, size, inode), and a sync reads only the files whose
 * stamp moved: deciding by a content hash alone would mean reading every byte of every file on
 * every sync, while the stamp costs one stat(). ctime catches writes that put the old mtime back
 * (`touch -d`, `rsync -t`, unpacking an archive), the inode a replaced file or a ConfigMap's
 * symlink swap. A file that is read is hashed (SHA-256), and parsed only when its bytes differ
 * from the cached version's: a `touch`, a tool rewriting the same content or a re-check costs a
 * read, not a parse. A file changed within the file system's timestamp granularity of being read
 * could keep its stamp; such a "racily clean" file (as git calls it) is read again on the next sync.
 *
 * Bad input loses nothing: a file that is malformed, unreadable, too large or no longer a regular
 * file keeps the endpoints of its last good version until it is fixed or deleted. An object a
 * template fails on keeps its endpoints from the file's last version, and without any (at start-up,
 * a new object) its `resource` label is held (`heldResources()`): the planner neither updates nor
 * deletes its records. A file that is malformed at start-up holds nothing: the records name their
 * object, not the file, and a document that does not parse names no object. Problems are
 * logged when a file's version is first seen and stay available through `problems()`.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { LABEL_RESOURCE, freezeEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError, SourceError, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { InvalidEndpoint, ProblemReporter, Source, SourceProblem } from '../source.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import type { TranslateFlags, TranslateOptions } from '../translate/options.ts';
import { translateObject } from '../translate/translate.ts';
import { DirWatcher } from './dir-watcher.ts';
import { MANIFEST_MAX_BYTES_DEFAULT } from './flags.ts';
import { parseManifest } from './parse.ts';
import { readManifestFile } from './read.ts';
import type { ReadOutcome } from './read.ts';
import { kindOf, walkManifests } from './walk.ts';
import { translateFlagsOf } from '../translate/options.ts';
import type { FlagValues } from '../../config/config.ts';

// Reading in bounded batches keeps file descriptors and memory flat on very large trees.
const READ_BATCH = 64;
/**
 * A file whose mtime or ctime is this close to the moment it was read may change again without
 * moving its stamp (coarse kernel clocks tick every few milliseconds, some file systems every
 * second or two), so its cached version is not trusted on the next sync.
 */
const RACY_MS = 2000;
/** Stamps of versions that could not be stat()ed: the error code stands for the version. */
const ERROR_STAMP = 'error:';

export interface ManifestSourceOptions {
  dir: string;
  logger: Logger;
  translateOptions?: TranslateOptions;
  onProblem?: ProblemReporter;
  watch: boolean;
  /** Force the polling watcher instead of fs.watch. */
  poll?: boolean;
  debounceMs?: number;
  /** Largest manifest file read (`--manifest-max-bytes`); larger ones are reported and skipped. */
  maxFileBytes?: number;
}

/** What the manifest source reads of the resolved Config. */
export type ManifestFlagsConfig = Parameters<typeof translateFlagsOf>[0] & { manifestsDir: string; flags: FlagValues };

export interface ManifestSourceConfig extends TranslateFlags {
  manifestDir: string;
  watch?: boolean;
  maxFileBytes?: number;
}

export interface ManifestSyncStats {
  /** Manifest files seen by the last `endpoints()` call. */
  files: number;
  /** Of those, how many were parsed again (the rest came from the cache, some after a read showed the same bytes). */
  reparsed: number;
}

interface CachedFile {
  /** stampOf() of the version the entry describes. */
  stamp: string;
  /** Frozen: handed out as they are, never copied. */
  endpoints: readonly Endpoint[];
  problems: SourceProblem[];
  /** Changed too close to its reading for the stamp to be trusted: read again next time. */
  racy: boolean;
  /** SHA-256 of the bytes the endpoints were parsed from; absent when the version was not read. */
  hash?: string;
  /** `resource` labels of objects that could not be translated and have no endpoints kept for them. */
  held: readonly string[];
}

export class ManifestSource implements Source {
  readonly name = 'manifest';
  private readonly dir: string;
  private readonly logger: Logger;
  private readonly translateOptions: TranslateOptions;
  private readonly onProblem: ProblemReporter | undefined;
  private readonly watchEnabled: boolean;
  private readonly handlers = new Set<() => void>();
  private readonly maxFileBytes: number;
  private readonly cache = new Map<string, CachedFile>();
  private readonly watcher: DirWatcher;
  private watching = false;
  private stats: ManifestSyncStats = { files: 0, reparsed: 0 };
  /** Resources held as of the last `endpoints()`. */
  private held: ReadonlySet<string> = new Set();

  constructor(options: ManifestSourceOptions) {
    this.dir = options.dir;
    this.logger = options.logger;
    this.translateOptions = options.translateOptions ?? {};
    this.onProblem = options.onProblem;
    this.watchEnabled = options.watch;
    this.maxFileBytes = options.maxFileBytes ?? MANIFEST_MAX_BYTES_DEFAULT;
    this.watcher = new DirWatcher({
      dir: this.dir,
      logger: this.logger,
      poll: options.poll ?? false,
      debounceMs: options.debounceMs ?? 100,
      signature: () => this.signature(),
      onChange: (files) => this.changed(files),
    });
  }

  /** Builds the source from CLI settings; bad filters or templates throw ConfigError naming the flag. */
  /** From the flags: --manifests-dir, --manifest-max-bytes and the translation flags (annotation filter, templates, …). */
  static fromConfig(cfg: ManifestFlagsConfig, deps: { logger: Logger; watch?: boolean; onProblem?: ProblemReporter | undefined }): ManifestSource {
    return ManifestSource.open(
      { manifestDir: cfg.manifestsDir, watch: deps.watch ?? true, maxFileBytes: cfg.flags.num('manifest-max-bytes'), ...translateFlagsOf(cfg) },
      { logger: deps.logger, ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }) },
    );
  }

  /** From explicit options (tests and tools not driven by flags). */
  static open(config: ManifestSourceConfig, deps: { logger: Logger; onProblem?: ProblemReporter }): ManifestSource {
    const { manifestDir, watch, maxFileBytes, ...flags } = config;
    if (maxFileBytes !== undefined && !(Number.isSafeInteger(maxFileBytes) && maxFileBytes >= 1)) {
      throw new ConfigError(`--manifest-max-bytes must be a whole number of bytes, at least 1; got ${maxFileBytes}`, '--manifest-max-bytes');
    }
    const options: ManifestSourceOptions = {
      dir: manifestDir,
      logger: deps.logger.child({ source: 'manifest' }),
      translateOptions: buildTranslateOptions(flags),
      watch: watch ?? true,
      ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
    };
    if (deps.onProblem !== undefined) options.onProblem = deps.onProblem;
    return new ManifestSource(options);
  }

  async endpoints(): Promise<Endpoint[]> {
    const files = await this.listFiles();
    const seen = new Set(files);
    for (const cached of [...this.cache.keys()]) if (!seen.has(cached)) this.cache.delete(cached);
    const results: CachedFile[] = [];
    let reparsed = 0;
    for (let i = 0; i < files.length; i += READ_BATCH) {
      const batch = await Promise.all(files.slice(i, i + READ_BATCH).map((f) => this.loadFile(f)));
      for (const r of batch) {
        if (r === undefined) continue;
        results.push(r.file);
        if (r.reparsed) reparsed += 1;
      }
    }
    this.stats = { files: files.length, reparsed };
    this.held = new Set(results.flatMap((r) => r.held));
    // The cached endpoints themselves: they are frozen, so a caller that changes one clones it.
    return results.flatMap((r) => r.endpoints);
  }

  /** What the last `endpoints()` call read, for metrics and tests. */
  lastSync(): ManifestSyncStats {
    return { ...this.stats };
  }

  /** `resource` labels of objects that could not be translated and have no last endpoints, as of the last `endpoints()`. */
  heldResources(): ReadonlySet<string> {
    return this.held;
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return this.problems().flatMap((p) => (p.recordType === undefined ? [] : [{ recordType: p.recordType, sourceType: this.name }]));
  }

  /** Problems of the files as last read, for status pages and `explain`. */
  problems(): SourceProblem[] {
    return [...this.cache.values()].flatMap((c) => c.problems);
  }

  addEventHandler(handler: () => void): () => void {
    this.handlers.add(handler);
    if (this.watchEnabled && !this.watching) {
      this.watching = true;
      this.watcher.start();
    }
    return () => {
      this.handlers.delete(handler);
    };
  }

  async close(): Promise<void> {
    this.watcher.close();
    this.handlers.clear();
  }

  private changed(files: string[]): void {
    // Events name the touched paths: they are read again even if their stamps did not move.
    for (const f of files) {
      const entry = this.cache.get(join(this.dir, f));
      if (entry !== undefined) entry.racy = true;
    }
    this.logger.debug({ dir: this.dir, files: files.slice(0, 10), count: files.length }, 'manifest directory changed');
    for (const handler of [...this.handlers]) {
      try {
        handler();
      } catch (err) {
        this.logger.error({ err: (err as Error).message }, 'manifest event handler failed');
      }
    }
  }

  private async loadFile(file: string): Promise<{ file: CachedFile; reparsed: boolean } | undefined> {
    const cached = this.cache.get(file);
    let st: Stats;
    try {
      st = await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.cache.delete(file); // removed between listing and reading
        return undefined;
      }
      // A symbolic link loop (ELOOP), a target we may not see (EACCES), …
      return this.unread(file, cached, `${ERROR_STAMP}${(err as NodeJS.ErrnoException).code ?? ''}`, `cannot be followed: ${errorMessage(err)}`);
    }
    const stamp = stampOf(st);
    if (cached !== undefined && !cached.racy && cached.stamp === stamp) return { file: cached, reparsed: false };
    // Checked before opening: a FIFO or device is never opened, a file over the limit never read.
    if (!st.isFile()) return this.unread(file, cached, stamp, `not a regular file (${kindOf(st)})`);
    if (st.size > this.maxFileBytes) return this.unread(file, cached, stamp, tooLarge(st.size, this.maxFileBytes));
    const readAt = Date.now();
    let outcome: ReadOutcome;
    try {
      outcome = await readManifestFile(file, this.maxFileBytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.cache.delete(file);
        return undefined;
      }
      // An I/O error may pass without the file changing: racy, so it is tried again on every sync.
      const entry = this.unread(file, cached, stamp, `cannot be read: ${errorMessage(err)}`);
      entry.file.racy = true;
      return entry;
    }
    if (outcome.kind === 'not-regular') return this.unread(file, cached, stamp, outcome.reason);
    if (outcome.kind === 'too-large') return this.unread(file, cached, stamp, tooLarge(outcome.size, this.maxFileBytes));
    const racy = Math.max(st.mtimeMs, st.ctimeMs) >= readAt - RACY_MS;
    const hash = createHash('sha256').update(outcome.text).digest('base64');
    if (cached !== undefined && cached.hash === hash) {
      // Same bytes as the cached version: its endpoints and problems stand (and were reported).
      const entry = { ...cached, stamp, racy };
      this.cache.set(file, entry);
      return { file: entry, reparsed: false };
    }
    const translated = this.translateFile(file, outcome.text);
    for (const ep of translated.endpoints) freezeEndpoint(ep);
    const { endpoints, held } = keepFailedObjects(translated.endpoints, translated.held, cached);
    let entry: CachedFile = { stamp, endpoints, problems: translated.problems, racy, hash, held };
    if (translated.malformed && cached !== undefined && cached.endpoints.length > 0) {
      const kept = this.keepLast(file, cached);
      entry = { ...kept, stamp, racy, hash, problems: [...translated.problems, ...kept.problems], held };
    }
    this.cache.set(file, entry);
    return { file: entry, reparsed: true };
  }

  /** A version of `file` that was not read: reported once, and the last good endpoints are kept. */
  private unread(file: string, cached: CachedFile | undefined, stamp: string, reason: string): { file: CachedFile; reparsed: boolean } {
    const problem: SourceProblem = { file, message: `${file}: ${reason}; not read` };
    const entry = { ...this.keepLast(file, cached, problem), stamp };
    this.cache.set(file, entry);
    return { file: entry, reparsed: true };
  }

  /**
   * A half-saved, mistyped, oversized or unreadable file must not delete the records it described:
   * the entry keeps the last good version's endpoints (if any) until the file is fixed or deleted.
   * `problem` says why this version was not used; it is logged when it differs from the last one,
   * not on every sync.
   */
  private keepLast(file: string, cached: CachedFile | undefined, problem?: SourceProblem): CachedFile {
    const problems: SourceProblem[] = [];
    const endpoints = cached?.endpoints ?? [];
    const keeping: SourceProblem | undefined =
      endpoints.length > 0
        ? { file, message: `${file}: keeping ${endpoints.length} endpoint(s) from the last readable version until the file is fixed` }
        : undefined;
    if (problem !== undefined) problems.push(problem);
    if (keeping !== undefined) problems.push(keeping);
    const reported = problem !== undefined && cached?.problems[0]?.message === problem.message;
    if (!reported) {
      for (const p of problems) {
        this.logger.warn(p === keeping ? { file, endpoints: endpoints.length } : { file }, p.message);
        this.onProblem?.(p);
      }
    }
    return { stamp: '', endpoints, problems, racy: false, held: cached?.held ?? [] };
  }

  private translateFile(file: string, text: string): { endpoints: Endpoint[]; problems: SourceProblem[]; malformed: boolean; held: string[] } {
    const parsed = parseManifest(text);
    const endpoints: Endpoint[] = [];
    const problems: SourceProblem[] = [];
    const held: string[] = [];
    for (const error of parsed.errors) {
      const problem: SourceProblem = { file, line: error.line, message: `${file}:${error.line}: malformed manifest: ${error.message}` };
      problems.push(problem);
      this.logger.warn({ file, line: error.line, err: error.message }, 'malformed manifest; document skipped');
      this.onProblem?.(problem);
    }
    for (const item of parsed.objects) {
      const result = translateObject(item.object, this.translateOptions, { file, line: item.line, lineOf: item.lineOf });
      if (result.outcome === 'unsupported-kind' || result.outcome === 'filtered' || result.outcome === 'controller-mismatch') {
        this.logger.debug({ file, line: item.line, kind: result.ref?.kind, name: result.ref?.name, outcome: result.outcome }, 'manifest object ignored');
      }
      for (const problem of result.problems) {
        problems.push(problem);
        const ref = problem.ref;
        this.logger.warn({ file, line: problem.line ?? item.line, kind: ref?.kind, namespace: ref?.namespace, name: ref?.name }, problem.message);
        this.onProblem?.(problem);
      }
      endpoints.push(...result.endpoints);
      if (result.heldResource !== undefined) held.push(result.heldResource);
    }
    return { endpoints, problems, malformed: parsed.errors.length > 0, held };
  }

  private async listFiles(): Promise<string[]> {
    let walked;
    try {
      walked = await walkManifests(this.dir);
    } catch (err) {
      throw new SourceError(`cannot read manifest directory ${this.dir}: ${errorMessage(err)}`, { transient: true, cause: err });
    }
    if (walked.revisits.length > 0)
      this.logger.debug(
        { dir: this.dir, links: walked.revisits.slice(0, 10), count: walked.revisits.length },
        'directories reached again through symbolic links were read once',
      );
    return walked.files;
  }

  /** For the polling watcher: changes whenever a manifest file is added, removed or changed. */
  private async signature(): Promise<string> {
    const { files } = await walkManifests(this.dir);
    const parts: string[] = [];
    for (let i = 0; i < files.length; i += READ_BATCH) {
      const batch = await Promise.all(
        files.slice(i, i + READ_BATCH).map(async (f) => {
          try {
            const st = await stat(f);
            return `${relative(this.dir, f)}:${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`;
          } catch {
            return `${relative(this.dir, f)}:gone`;
          }
        }),
      );
      parts.push(...batch);
    }
    return parts.join('\n');
  }
}

/**
 * Objects of a new version that could not be translated keep their endpoints of the file's
 * cached version (found by their `resource` label); those that had none stay held.
 */
function keepFailedObjects(
  endpoints: Endpoint[],
  failed: readonly string[],
  cached: CachedFile | undefined,
): { endpoints: readonly Endpoint[]; held: readonly string[] } {
  if (failed.length === 0) return { endpoints, held: [] };
  const held: string[] = [];
  const out = [...endpoints];
  for (const resource of failed) {
    const kept = (cached?.endpoints ?? []).filter((ep) => ep.labels[LABEL_RESOURCE] === resource);
    if (kept.length === 0) held.push(resource);
    else out.push(...kept);
  }
  return { endpoints: out, held };
}

/** The version of a file as stat() sees it; see the header for why this and not a hash. */
function stampOf(st: Stats): string {
  return `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`;
}

function tooLarge(size: number, max: number): string {
  return `${size} bytes, more than --manifest-max-bytes (${max})`;
}
