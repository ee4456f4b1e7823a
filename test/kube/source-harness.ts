/**
 * What the source integration tests (test/kube/sources-*.test.ts) share, so each file reads as its
 * scenario: the suite's test API server and writer, sources built from CLI flags, a source synced
 * by the real controller through the TXT registry into a fresh inmemory zone (example.org) with
 * record Events on, endpoints and records as comparable lines, and the "started before its CRD"
 * check every CRD-based source makes.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import type { Config } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { Controller } from '../../src/controller/controller.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import type { Endpoint, RecordType } from '../../src/endpoint/endpoint.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { silentLogger } from '../../src/log.ts';
import type { Logger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { KubeSourceName } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { KubeSourceDeps } from '../../src/source/kube/sources.ts';
import type { Source, SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { MultiSource } from '../../src/source/wrappers/multi-source.ts';
import type { CrdObject } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { ObjectInput, TestApiServer } from '../support/kube-apiserver/server.ts';
import { runCli } from '../support/cli.ts';
import { KubeWriter, assertCrdAbsent, waitFor } from './harness.ts';

/** The test API server of one `describe`, started in its `before` and stopped in its `after`. */
export interface SuiteApiServer {
  readonly logger: Logger;
  readonly api: TestApiServer;
  /** The client the tests write with (and Events are written through). */
  readonly writer: KubeClient;
  readonly kube: KubeWriter;
  /** A temporary directory, removed after the suite. */
  readonly dir: string;
  /** The path of a kubeconfig file for the server (in `dir`). */
  readonly kubeconfig: string;
  /** Runs `close` after the suite's tests, before the server stops (the last registered first). */
  closeAfter(close: () => Promise<void>): void;
  /** The source `hostwarden run --source <name> --kubeconfig <this server> ...flags` builds (not started), closed after the suite. */
  sourceFromFlags(name: KubeSourceName, flags?: string[], problems?: SourceProblem[]): KubeObjectSource;
  /** What a source's constructor takes: a client of its own (closed after the suite), every namespace, default translation options. */
  sourceDeps(overrides?: Partial<KubeSourceDeps>): KubeSourceDeps;
}

export interface SuiteOptions {
  namespaces?: string[];
  /** Installed before the tests. */
  crds?: CrdObject[];
}

/** Registers the `before`/`after` hooks of the enclosing `describe` and returns what they set up. */
export function useTestApiServer(opts: SuiteOptions = {}): SuiteApiServer {
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];
  let state: { api: TestApiServer; writer: KubeClient; kube: KubeWriter; dir: string; kubeconfig: string } | undefined;
  const ready = (): NonNullable<typeof state> => {
    if (state === undefined) throw new Error('the test API server is started in before()');
    return state;
  };
  before(async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200, ...(opts.namespaces === undefined ? {} : { namespaces: opts.namespaces }) });
    for (const crd of opts.crds ?? []) api.create(crd);
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const dir = await mkdtemp(join(tmpdir(), 'hw-source-'));
    state = { api, writer, kube: new KubeWriter(writer), dir, kubeconfig: await api.writeKubeconfig(dir) };
  });
  after(async () => {
    // Last registered first: a source closes before the client it was given.
    for (const close of [...closers].reverse()) await close();
    const s = ready();
    s.writer.close();
    await s.api.stop();
    await rm(s.dir, { recursive: true, force: true });
  });
  return {
    logger,
    get api() {
      return ready().api;
    },
    get writer() {
      return ready().writer;
    },
    get kube() {
      return ready().kube;
    },
    get dir() {
      return ready().dir;
    },
    get kubeconfig() {
      return ready().kubeconfig;
    },
    closeAfter: (close) => {
      closers.push(close);
    },
    sourceFromFlags: (name, flags = [], problems = []) => {
      const source = kubeSourceFromConfig(name, configFromFlags(['--source', name, '--kubeconfig', ready().kubeconfig, ...flags]), {
        logger,
        onProblem: (p) => problems.push(p),
      });
      closers.push(() => source.close());
      return source;
    },
    sourceDeps: (overrides = {}) => {
      const client = new KubeClient({ config: ready().api.kubeConfig(), logger });
      closers.push(async () => client.close());
      return { client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000, ...overrides };
    },
  };
}

/** The resolved configuration of `hostwarden run` with these flags. */
export function configFromFlags(args: string[]): Config {
  return resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
}

/** What a source test compares besides name, type and targets (sorted), and of which names. */
export interface LineOptions {
  ttl?: boolean;
  /** The `resource` label (`kind/namespace/name`). */
  resource?: boolean;
  /** Only names ending in this. */
  suffix?: string;
}

/** Endpoints as sorted lines: `name type targets[ ttl][ resource]`. */
export function endpointLines(endpoints: readonly Endpoint[], fields: LineOptions = {}): string[] {
  return endpoints
    .filter((e) => fields.suffix === undefined || e.dnsName.endsWith(fields.suffix))
    .map((e) => {
      const line = [e.dnsName, e.recordType, [...e.targets].sort().join(',')];
      if (fields.ttl === true) line.push(String(e.recordTTL));
      if (fields.resource === true) line.push(e.labels['resource'] ?? '');
      return line.join(' ');
    })
    .sort();
}

/** A source's current endpoints as lines (see endpointLines). */
export async function viewOf(source: Pick<Source, 'endpoints'>, fields: LineOptions = {}): Promise<string[]> {
  return endpointLines(await source.endpoints(), fields);
}

/** Waits until the source's endpoints, as lines (see endpointLines), are `expected` (any order). */
export function untilViewed(what: string, source: Pick<Source, 'endpoints'>, expected: string[], options: LineOptions = {}): Promise<void> {
  return until(what, () => viewOf(source, options), expected);
}

/** Waits until `read()` is `expected` (any order; default 20 s); fails showing both. */
export async function until(what: string, read: () => Promise<string[]>, expected: string[], timeoutMs = 20_000): Promise<void> {
  const want = JSON.stringify([...expected].sort());
  await waitFor(what, async () => (JSON.stringify(await read()) === want ? true : undefined), timeoutMs).catch(async (err: unknown) => {
    assert.deepEqual(await read(), [...expected].sort(), String(err));
    throw err;
  });
}

export interface Pipeline {
  /** Non-TXT records as `name type targets ttl`, sorted. */
  records: () => Promise<string[]>;
  /** Non-TXT records as the registry reads them. */
  endpoints: () => Promise<Endpoint[]>;
  /** Stops the controller, closes the sources and flushes the Events. */
  close: () => Promise<void>;
}

type ClosableSource = Source & { close(): Promise<void> };

export interface PipelineOptions {
  /** `hw` unless said. */
  ownerId?: string;
  /** A, AAAA and CNAME unless said. */
  managedRecordTypes?: RecordType[];
  /** Record Events (RecordReady, RecordDeleted, RecordError) written through `writer`; on unless false. */
  events?: boolean;
}

/** `sources` synced by the real controller through the TXT registry into a fresh inmemory zone (example.org). */
export function syncPipeline(sources: ClosableSource | ClosableSource[], writer: KubeClient, logger: Logger, opts: PipelineOptions = {}): Pipeline {
  const all = Array.isArray(sources) ? sources : [sources];
  const ownerId = opts.ownerId ?? 'hw';
  const managedRecordTypes: RecordType[] = opts.managedRecordTypes ?? ['A', 'AAAA', 'CNAME'];
  const provider = new InMemoryProvider({ zones: ['example.org'] });
  const registry = new TXTRegistry(provider, { ownerId, managedRecordTypes, excludeRecordTypes: [], logger });
  const recorder = opts.events === false ? undefined : new EventRecorder({ client: writer, logger, instance: ownerId });
  const reporter =
    recorder === undefined ? undefined : new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
  const controller = new Controller({
    source: all.length === 1 ? (all[0] as ClosableSource) : new MultiSource({ sources: all }),
    registry,
    plan: { policy: 'sync', managedRecordTypes, excludeRecordTypes: [], domainFilter: new AllDomainFilters([]), migrateFromOwner: '' },
    intervalMs: 60_000,
    minEventSyncIntervalMs: 20,
    dryRun: false,
    logger,
    backoff: { initialMs: 50, maxMs: 500 },
    ...(reporter === undefined ? {} : { onSynced: (r: Parameters<RecordEventReporter['onSynced']>[0]) => reporter.onSynced(r) }),
  });
  const stop = new AbortController();
  const loop = controller.run(stop.signal);
  const endpoints = async (): Promise<Endpoint[]> => (await registry.records()).filter((e) => e.recordType !== 'TXT');
  return {
    endpoints,
    records: async () => endpointLines(await endpoints(), { ttl: true }),
    close: async () => {
      stop.abort();
      await loop;
      await Promise.all(all.map((s) => s.close()));
      await recorder?.flush();
    },
  };
}

/** A CRD-based source as the "started before its CRD" check drives it. */
type CrdSource = ClosableSource & { start(): void; heldResources(): ReadonlySet<string> };

export interface CrdLateCase {
  /** The source, from the deps of a fresh test API server without its CRDs. */
  build: (deps: KubeSourceDeps) => CrdSource;
  /** What it holds meanwhile (`kind/*`). */
  held: string;
  crds: CrdObject[];
  namespaces?: string[];
  /** Writes the objects once the CRDs exist. */
  write: (kube: KubeWriter) => Promise<void>;
  /** A name the source publishes from them. */
  publishes: string;
}

/**
 * A source started before its CRDs exist: it answers no endpoints and holds its kind (the
 * reflectors retry the 404 with backoff instead of stopping); once the CRDs appear it starts by
 * itself and publishes what is written.
 */
export async function assertStartsOnceCrdsExist(c: CrdLateCase): Promise<void> {
  const api = await startTestApiServer({ bookmarkIntervalMs: 200, ...(c.namespaces === undefined ? {} : { namespaces: c.namespaces }) });
  const logger = silentLogger();
  const client = new KubeClient({ config: api.kubeConfig(), logger });
  const writer = new KubeClient({ config: api.kubeConfig(), logger });
  const source = c.build({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 });
  try {
    source.start();
    await assertCrdAbsent(source, c.held);
    for (const crd of c.crds) api.create(crd);
    await c.write(new KubeWriter(writer));
    const published = async (): Promise<true | undefined> => {
      try {
        return (await source.endpoints()).some((e) => e.dnsName === c.publishes) ? true : undefined;
      } catch {
        return undefined;
      }
    };
    // Bounded by the reflectors' backoff (a few seconds by then) on two shared cores.
    await waitFor('the source starts once its CRDs exist', published, 30_000);
  } finally {
    await source.close();
    writer.close();
    client.close();
    await api.stop();
  }
}

/** What `hostwarden run --once` left: the embedded zone file of example.org, and the server for its Events. */
export interface RunOnceResult {
  zone: string;
  api: TestApiServer;
}

/**
 * `hostwarden run --once --events-emit RecordReady ...args` (the binary, as a user runs it) against a
 * fresh test API server holding `crds` and `objects`, into an embedded zone (example.org); `check`
 * runs while the server still answers.
 */
export async function runOnce(
  setup: { namespaces: string[]; crds: CrdObject[]; objects: ObjectInput[]; args: string[] },
  check: (r: RunOnceResult) => Promise<void>,
): Promise<void> {
  const api = await startTestApiServer({ namespaces: setup.namespaces });
  const dir = await mkdtemp(join(tmpdir(), 'hw-source-cli-'));
  try {
    for (const crd of setup.crds) api.create(crd);
    for (const obj of setup.objects) api.create(obj);
    const data = join(dir, 'data');
    const args = ['run', '--once', '--events-emit', 'RecordReady', ...setup.args, '--kubeconfig', await api.writeKubeconfig(dir)];
    const r = await runCli([...args, '--embedded-data-dir', data, '--embedded-zone', 'example.org', '--txt-owner-id', 'cli', '--metrics-address', ''], {
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const zone = await readFile(join(data, 'example.org.zone'), 'utf8').catch(() => readFile(join(data, 'example.org'), 'utf8'));
    await check({ zone, api });
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
