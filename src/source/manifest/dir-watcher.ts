/**
 * Watches a directory tree and reports "something changed" debounced, so a burst of writes (an
 * editor's save, a ConfigMap symlink swap) causes one resync. Uses recursive fs.watch where the
 * platform has it and falls back to polling a cheap signature of the tree.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import type { Logger } from '../../log.ts';

export interface DirWatcherOptions {
  dir: string;
  logger: Logger;
  /** Called once per debounced burst with the relative paths reported (empty when unknown). */
  onChange: (files: string[]) => void;
  /** Polling fallback: returns a value that changes whenever the tree changes. */
  signature: () => Promise<string>;
  debounceMs?: number;
  /** Upper bound on how long a continuous stream of events can delay the callback. */
  maxDelayMs?: number;
  pollIntervalMs?: number;
  /** Force polling (tests, network file systems where inotify sees nothing). */
  poll?: boolean;
}

export class DirWatcher {
  private readonly options: DirWatcherOptions;
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private burstStart: number | undefined;
  private pending = new Set<string>();
  private lastSignature: string | undefined;
  private polling = false;
  private closed = false;

  constructor(options: DirWatcherOptions) {
    this.options = options;
  }

  start(): void {
    if (this.closed || this.watcher !== undefined || this.pollTimer !== undefined) return;
    if (this.options.poll !== true) {
      try {
        // Not persistent: the controller loop, not a source, decides whether the process stays up.
        this.watcher = watch(this.options.dir, { recursive: true, persistent: false }, (_event, file) => this.notify(file ?? undefined));
        this.watcher.on('error', (err) => {
          this.options.logger.warn({ dir: this.options.dir, err: err.message }, 'directory watch failed; polling instead');
          this.stopWatcher();
          this.startPolling();
          this.notify(undefined);
        });
        return;
      } catch (err) {
        this.options.logger.info({ dir: this.options.dir, err: (err as Error).message }, 'recursive directory watch unavailable; polling');
      }
    }
    this.startPolling();
  }

  close(): void {
    this.closed = true;
    this.stopWatcher();
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.pollTimer = undefined;
    this.debounceTimer = undefined;
  }

  private stopWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private startPolling(): void {
    if (this.closed) return;
    const interval = this.options.pollIntervalMs ?? 250;
    void this.currentSignature().then((sig) => {
      this.lastSignature ??= sig;
    });
    this.pollTimer = setInterval(() => void this.pollOnce(), interval);
    this.pollTimer.unref();
  }

  private async pollOnce(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const sig = await this.currentSignature();
      if (this.lastSignature !== undefined && sig !== this.lastSignature) this.notify(undefined);
      this.lastSignature = sig;
    } finally {
      this.polling = false;
    }
  }

  /** An unreadable tree has a signature too, so its appearance or disappearance counts as a change. */
  private async currentSignature(): Promise<string> {
    try {
      return await this.options.signature();
    } catch (err) {
      this.options.logger.debug({ dir: this.options.dir, err: (err as Error).message }, 'polling the manifest directory failed');
      return `unreadable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    }
  }

  private notify(file: string | undefined): void {
    if (this.closed) return;
    if (file !== undefined) this.pending.add(file);
    const now = Date.now();
    this.burstStart ??= now;
    const debounce = this.options.debounceMs ?? 100;
    const maxDelay = this.options.maxDelayMs ?? 1000;
    const wait = Math.max(0, Math.min(debounce, this.burstStart + maxDelay - now));
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => this.fire(), wait);
    this.debounceTimer.unref();
  }

  private fire(): void {
    this.debounceTimer = undefined;
    this.burstStart = undefined;
    const files = [...this.pending];
    this.pending = new Set();
    if (this.closed) return;
    try {
      this.options.onChange(files);
    } catch (err) {
      this.options.logger.error({ dir: this.options.dir, err: (err as Error).message }, 'manifest change handler failed');
    }
  }
}
