/**
 * A source that reads Kubernetes manifests (Service, Ingress, DNSEndpoint) from a directory tree,
 * so Hostwarden can run without a cluster and tests can drive it with plain files. Per-file results
 * are cached by (mtime, ctime, size, inode), so a sync over thousands of files re-reads only what
 * changed; problems are logged when a file is (re)read and stay available through `problems()`.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { SourceError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { ProblemReporter, Source, SourceProblem } from '../source.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import type { TranslateFlags, TranslateOptions } from '../translate/options.ts';
import { translateObject } from '../translate/translate.ts';
import { DirWatcher } from './dir-watcher.ts';
import { parseManifest } from './parse.ts';

export const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;
// Reading in bounded batches keeps file descriptors and memory flat on very large trees.
const READ_BATCH = 64;

export interface ManifestSourceOptions {
  dir: string;
  logger: Logger;
  translateOptions?: TranslateOptions;
  onProblem?: ProblemReporter;
  watch: boolean;
  /** Force the polling watcher instead of fs.watch. */
  poll?: boolean;
  debounceMs?: number;
}

export interface ManifestSourceConfig extends TranslateFlags {
  manifestDir: string;
  watch?: boolean;
}

interface FileStamp {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
}

export interface ManifestSyncStats {
  /** Manifest files seen by the last `endpoints()` call. */
  files: number;
  /** Of those, how many were read and parsed again (the rest came from the cache). */
  reparsed: number;
}

interface CachedFile {
  stamp: FileStamp;
  endpoints: Endpoint[];
  problems: SourceProblem[];
}

export class ManifestSource implements Source {
  readonly name = 'manifest';
  private readonly dir: string;
  private readonly logger: Logger;
  private readonly translateOptions: TranslateOptions;
  private readonly onProblem: ProblemReporter | undefined;
  private readonly watchEnabled: boolean;
  private readonly handlers = new Set<() => void>();
  private readonly cache = new Map<string, CachedFile>();
  private readonly watcher: DirWatcher;
  private watching = false;
  private stats: ManifestSyncStats = { files: 0, reparsed: 0 };

  constructor(options: ManifestSourceOptions) {
    this.dir = options.dir;
    this.logger = options.logger;
    this.translateOptions = options.translateOptions ?? {};
    this.onProblem = options.onProblem;
    this.watchEnabled = options.watch;
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
  static fromConfig(config: ManifestSourceConfig, deps: { logger: Logger; onProblem?: ProblemReporter }): ManifestSource {
    const { manifestDir, watch, ...flags } = config;
    const options: ManifestSourceOptions = {
      dir: manifestDir,
      logger: deps.logger.child({ source: 'manifest' }),
      translateOptions: buildTranslateOptions(flags),
      watch: watch ?? true,
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
    // Copies, so callers that adjust endpoints cannot corrupt the cache.
    return results.flatMap((r) => r.endpoints.map(cloneEndpoint));
  }

  /** What the last `endpoints()` call read, for metrics and tests. */
  lastSync(): ManifestSyncStats {
    return { ...this.stats };
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
    // Events name the touched paths; forgetting their stamps forces a re-read even if the stamp did not move.
    for (const f of files) {
      const entry = this.cache.get(join(this.dir, f));
      if (entry !== undefined) entry.stamp = { mtimeMs: -1, ctimeMs: -1, size: -1, ino: -1 };
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
    let stamp: FileStamp;
    try {
      const st = await stat(file);
      stamp = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino };
    } catch {
      this.cache.delete(file); // removed between listing and reading
      return undefined;
    }
    const cached = this.cache.get(file);
    if (cached !== undefined && sameStamp(cached.stamp, stamp)) return { file: cached, reparsed: false };
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      this.logger.warn({ file, err: (err as Error).message }, cached === undefined ? 'cannot read manifest file' : 'cannot read manifest file; keeping its last endpoints');
      return cached === undefined ? undefined : { file: cached, reparsed: false };
    }
    const translated = this.translateFile(file, text);
    const entry: CachedFile = { stamp, endpoints: translated.endpoints, problems: translated.problems };
    if (translated.malformed && cached !== undefined && cached.endpoints.length > 0) {
      // A half-saved or mistyped file must not delete the records it described: keep the last
      // readable version's endpoints until the file parses again (or is deleted).
      entry.endpoints = cached.endpoints;
      const message = `${file}: keeping ${cached.endpoints.length} endpoint(s) from the last readable version until the file is fixed`;
      entry.problems = [...translated.problems, { file, message }];
      this.logger.warn({ file, endpoints: cached.endpoints.length }, message);
      this.onProblem?.({ file, message });
    }
    this.cache.set(file, entry);
    return { file: entry, reparsed: true };
  }

  private translateFile(file: string, text: string): { endpoints: Endpoint[]; problems: SourceProblem[]; malformed: boolean } {
    const parsed = parseManifest(text);
    const endpoints: Endpoint[] = [];
    const problems: SourceProblem[] = [];
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
        this.logger.warn(
          { file, line: problem.line ?? item.line, kind: ref?.kind, namespace: ref?.namespace, name: ref?.name },
          problem.message,
        );
        this.onProblem?.(problem);
      }
      endpoints.push(...result.endpoints);
    }
    return { endpoints, problems, malformed: parsed.errors.length > 0 };
  }

  private async listFiles(): Promise<string[]> {
    let entries: string[];
    try {
      entries = await readdir(this.dir, { recursive: true });
    } catch (err) {
      throw new SourceError(`cannot read manifest directory ${this.dir}: ${(err as Error).message}`, { transient: true, cause: err });
    }
    // Dot-entries are skipped: ConfigMap volumes keep a second copy of every file under `..data`.
    return entries
      .filter((rel) => MANIFEST_EXTENSIONS.includes(extname(rel).toLowerCase() as (typeof MANIFEST_EXTENSIONS)[number]))
      .filter((rel) => !rel.split(/[\\/]/).some((part) => part.startsWith('.')))
      .sort()
      .map((rel) => join(this.dir, rel));
  }

  private async signature(): Promise<string> {
    const files = await this.listFiles();
    const parts: string[] = [];
    for (let i = 0; i < files.length; i += READ_BATCH) {
      const batch = await Promise.all(
        files.slice(i, i + READ_BATCH).map(async (f) => {
          try {
            const st = await stat(f);
            return `${relative(this.dir, f)}:${st.mtimeMs}:${st.size}:${st.ino}`;
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

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino;
}
