/**
 * Watch streams: newline-delimited JSON events, replayed from the store's history after the
 * requested resourceVersion, then live. Like kube-apiserver, a resourceVersion older than the
 * history yields one ERROR event carrying a 410 `Expired` Status, and an object that stops (starts)
 * matching the selectors is sent as DELETED (ADDED).
 */
import type { ServerResponse } from 'node:http';
import { deepClone, statusObject } from './types.ts';
import type { KubeObject, WatchEventType } from './types.ts';
import { typeKey } from './resources.ts';
import type { ResourceType } from './resources.ts';
import type { Selector } from './selectors.ts';
import type { ObjectStore, StoredEvent } from './store.ts';

export interface WatchRequest {
  type: ResourceType;
  namespace: string | undefined;
  labels: Selector;
  fields: Selector;
  /** undefined, '' or '0': start with ADDED events for every current object. */
  resourceVersion: string | undefined;
  bookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds: number | undefined;
  /** Turns a stored object into what goes on the wire (version, Table, …). */
  render: (obj: KubeObject) => unknown;
}

interface Session {
  res: ServerResponse;
  hung: boolean;
  close: (abrupt?: boolean) => void;
}

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
}

export class WatchHub {
  private readonly sessions = new Set<Session>();
  private hangNew = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly options: WatchHubOptions,
  ) {}

  openCount(): number {
    return this.sessions.size;
  }

  /**
   * Ends every open watch stream: cleanly (the chunked body ends, as when kube-apiserver's request
   * timeout fires) or abruptly (the connection is reset, as when a load balancer drops it).
   */
  dropAll(abrupt = false): void {
    for (const s of [...this.sessions]) s.close(abrupt);
  }

  /** While on, open and new watch streams stay connected but receive nothing (events are lost). */
  setHang(on: boolean): void {
    this.hangNew = on;
    if (on) for (const s of this.sessions) s.hung = true;
  }

  serve(req: WatchRequest, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'cache-control': 'no-cache, private' });
    res.flushHeaders();
    const matches = (obj: KubeObject | undefined): boolean =>
      obj !== undefined && (req.namespace === undefined || obj.metadata.namespace === req.namespace) && req.labels(obj) && req.fields(obj);
    const key = typeKey(req.type.group, req.type.plural);
    const timers: NodeJS.Timeout[] = [];
    let unsubscribe = (): void => {};
    const session: Session = {
      res,
      hung: this.hangNew,
      close: (abrupt = false) => {
        if (!this.sessions.delete(session)) return;
        unsubscribe();
        for (const t of timers) clearTimeout(t);
        if (abrupt) res.socket?.destroy();
        else res.end();
      },
    };
    this.sessions.add(session);
    res.on('close', () => session.close());
    // A write racing a client disconnect must not become an unhandled 'error' event.
    res.on('error', () => session.close());

    const send = (type: WatchEventType, object: unknown): void => {
      if (session.hung || res.writableEnded || res.destroyed) return;
      res.write(`${JSON.stringify({ type, object })}\n`);
    };
    const onEvent = (ev: StoredEvent): void => {
      if (typeKey(ev.type.group, ev.type.plural) !== key) return;
      const now = ev.kind !== 'DELETED' && matches(ev.object);
      const before = ev.kind === 'DELETED' ? matches(ev.object) || matches(ev.prev) : matches(ev.prev);
      if (now && before) send('MODIFIED', req.render(ev.object));
      else if (now) send('ADDED', req.render(ev.object));
      else if (before) {
        const last = ev.kind === 'DELETED' ? ev.object : deepClone(ev.prev!);
        last.metadata.resourceVersion = String(ev.rv);
        send('DELETED', req.render(last));
      }
    };
    const bookmark = (annotations?: Record<string, string>): void => {
      const metadata: Record<string, unknown> = { resourceVersion: String(this.store.currentRv()) };
      if (annotations !== undefined) metadata.annotations = annotations;
      send('BOOKMARK', { kind: req.type.kind, apiVersion: req.type.group === '' ? req.type.version : `${req.type.group}/${req.type.version}`, metadata });
    };

    const rv = req.resourceVersion;
    const fromScratch = rv === undefined || rv === '' || rv === '0';
    if (fromScratch || req.sendInitialEvents) {
      for (const obj of this.store.scan(req.type, req.namespace) ?? []) if (matches(obj)) send('ADDED', req.render(obj));
      if (req.sendInitialEvents && req.bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const n = Number(rv);
      const replay = Number.isInteger(n) && n >= 0 ? this.store.eventsSince(n) : undefined;
      if (!Number.isInteger(n) || n < 0) {
        send('ERROR', statusObject(400, 'BadRequest', `invalid resource version "${rv}"`));
        session.close();
        return;
      }
      if (replay === undefined) {
        send('ERROR', statusObject(410, 'Expired', `too old resource version: ${n} (${this.store.oldestRv() + 1})`));
        session.close();
        return;
      }
      for (const ev of replay) onEvent(ev);
    }
    unsubscribe = this.store.subscribe(onEvent);
    if (req.bookmarks) {
      const tick = (): void => {
        bookmark();
        timers[0] = setTimeout(tick, this.options.bookmarkIntervalMs);
      };
      timers[0] = setTimeout(tick, this.options.bookmarkIntervalMs);
    }
    if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
      // A hung stream models a dead connection: the client never hears the timeout either.
      timers.push(setTimeout(() => session.hung || session.close(), req.timeoutSeconds * 1000));
    }
  }
}
