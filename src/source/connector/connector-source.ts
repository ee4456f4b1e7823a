/**
 * `--source=connector`: external-dns's connector source (source/connector.go). At every sync it
 * connects over TCP to `--connector-source-server` (default `localhost:8080`) and reads one value,
 * a `[]*endpoint.Endpoint` in Go's encoding/gob (gob.ts), which the server writes and then closes
 * the connection; the endpoints are merged as upstream's MergeEndpoints does.
 *
 * A connection that fails (refused, timed out, closed early, not a gob stream of endpoints) is a
 * transient SourceError naming the server: that sync fails, the records stay, the next sync tries
 * again. Unlike upstream, which waits for the server forever once connected, the whole exchange
 * is bounded by the dial timeout (30s, as upstream's dial). An endpoint that is not valid is
 * reported and skipped; the others are kept. The source never signals a change (as upstream): it
 * is read every `--interval`.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Config } from '../../config/config.ts';
import { isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { validateEndpoint } from '../../endpoint/validate.ts';
import { ConfigError, SourceError, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { mergeEndpoints } from '../kube/merge.ts';
import type { ProblemReporter, Source } from '../source.ts';
import { GobDecoder, GobError } from './gob.ts';

export const CONNECTOR_SERVER_FLAG = '--connector-source-server';
/** external-dns's dialTimeout. */
const DIAL_TIMEOUT_MS = 30_000;
/** A gob message larger than this is refused (a corrupt length must not allocate gigabytes). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Opens a TCP connection (injected by tests; node:net's by default). */
export type Dialer = (host: string, port: number) => Socket;

export interface ConnectorOptions {
  /** host:port, as external-dns's flag. */
  server: string;
  logger: Logger;
  onProblem?: ProblemReporter;
  timeoutMs?: number;
  dial?: Dialer;
}

/** `host:port`, `[v6]:port`; a bad value stops start-up naming the flag. */
export function parseServer(server: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(server.trim());
  const port = Number(m?.[3]);
  if (m === null || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new ConfigError(`${CONNECTOR_SERVER_FLAG}: ${JSON.stringify(server)} is not host:port`, CONNECTOR_SERVER_FLAG);
  const host = m[1] ?? m[2] ?? '';
  return { host: host === '' ? 'localhost' : host, port };
}

export class ConnectorSource implements Source {
  readonly name = 'connector';
  private readonly server: string;
  private readonly host: string;
  private readonly port: number;
  private readonly log: Logger;
  private readonly onProblem: ProblemReporter | undefined;
  private readonly timeoutMs: number;
  private readonly dial: Dialer;

  constructor(options: ConnectorOptions) {
    const { host, port } = parseServer(options.server);
    this.server = options.server;
    this.host = host;
    this.port = port;
    this.log = options.logger;
    this.onProblem = options.onProblem;
    this.timeoutMs = options.timeoutMs ?? DIAL_TIMEOUT_MS;
    this.dial = options.dial ?? ((h, p) => connect({ host: h, port: p }));
  }

  static fromConfig(cfg: Config, deps: { logger: Logger; onProblem?: ProblemReporter | undefined }): ConnectorSource {
    return new ConnectorSource({
      server: cfg.flags.str('connector-source-server'),
      logger: deps.logger.child({ source: 'connector' }),
      ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }),
    });
  }

  async endpoints(): Promise<Endpoint[]> {
    let value: unknown;
    try {
      value = await this.receive();
    } catch (err) {
      throw new SourceError(`connector: reading endpoints from ${this.server} failed: ${errorMessage(err)}`, { transient: true, cause: err });
    }
    if (!Array.isArray(value)) throw new SourceError(`connector: ${this.server} sent a gob value that is not a list of endpoints`, { transient: true });
    const out: Endpoint[] = [];
    for (const item of value) {
      const ep = this.endpointOf(item);
      if (ep !== undefined) out.push(ep);
    }
    return mergeEndpoints(out);
  }

  /** The connector source never signals a change, as upstream's. */
  addEventHandler(_handler: () => void): () => void {
    return () => undefined;
  }

  /** Connects, reads until one gob value is complete, and closes. */
  private receive(): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const socket = this.dial(this.host, this.port);
      const decoder = new GobDecoder();
      let received = new Uint8Array(0);
      let settled = false;
      const finish = (err: Error | undefined, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        if (err === undefined) resolve(value);
        else reject(err);
      };
      const timer = setTimeout(() => finish(new Error(`no complete answer within ${Math.round(this.timeoutMs / 1000)}s`)), this.timeoutMs);
      socket.on('data', (chunk: Buffer) => {
        const next = new Uint8Array(received.length + chunk.length);
        next.set(received);
        next.set(chunk, received.length);
        received = next;
        try {
          const decoded = decoder.decodeFirst(received, MAX_MESSAGE_BYTES);
          if (decoded !== undefined) finish(undefined, decoded.value);
        } catch (err) {
          finish(err instanceof GobError ? new Error(`not a gob stream of endpoints: ${err.message}`) : (err as Error));
        }
      });
      socket.on('end', () =>
        finish(
          new Error(
            received.length === 0
              ? 'the server closed the connection without sending anything'
              : `the connection closed before a complete gob value (${received.length} bytes received)`,
          ),
        ),
      );
      socket.on('error', (err) => finish(err));
    });
  }

  /** One decoded upstream Endpoint → Hostwarden's, or undefined (reported) when it is not valid. */
  private endpointOf(item: unknown): Endpoint | undefined {
    const e = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const dnsName = typeof e['DNSName'] === 'string' ? e['DNSName'] : '';
    const recordType = typeof e['RecordType'] === 'string' ? e['RecordType'] : '';
    const labels = e['Labels'] instanceof Map ? Object.fromEntries([...e['Labels']].map(([k, v]) => [String(k), String(v)])) : {};
    const providerSpecific = (Array.isArray(e['ProviderSpecific']) ? e['ProviderSpecific'] : []).map((p) => {
      const r = (p ?? {}) as Record<string, unknown>;
      return { name: String(r['Name'] ?? ''), value: String(r['Value'] ?? '') };
    });
    const problem = (message: string): undefined => {
      const text = `connector: endpoint ${recordType} ${dnsName} from ${this.server} skipped: ${message}`;
      this.log.warn({ dnsName, recordType }, text);
      this.onProblem?.({ message: text });
      return undefined;
    };
    if (!isRecordType(recordType)) return problem(`record type ${JSON.stringify(recordType)} is not one Hostwarden knows`);
    try {
      return validateEndpoint(
        newEndpoint({
          dnsName,
          recordType,
          targets: (Array.isArray(e['Targets']) ? e['Targets'] : []).map(String),
          setIdentifier: typeof e['SetIdentifier'] === 'string' ? e['SetIdentifier'] : '',
          recordTTL: typeof e['RecordTTL'] === 'number' ? e['RecordTTL'] : 0,
          labels,
          providerSpecific,
        }),
      );
    } catch (err) {
      return problem(errorMessage(err));
    }
  }
}
