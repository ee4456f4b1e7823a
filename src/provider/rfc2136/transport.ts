/**
 * Sends DNS messages to one server: UDP for small requests with a fall back to TCP when the
 * answer is truncated or the request is too large for a plain UDP datagram, TCP (or TLS for DNS
 * over TLS, RFC 7858) for everything else, and streaming of multi-message zone transfers.
 */
import { createSocket } from 'node:dgram';
import { connect as netConnect, isIPv6 } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { HostwardenError } from '../../errors.ts';
import { readHeader } from './update-message.ts';

/** Requests larger than this go over TCP directly (no EDNS on updates, RFC 2136 section 3). */
export const UDP_LIMIT = 512;

export interface TransportOptions {
  host: string;
  port: number;
  /** Time allowed for one exchange, or for a whole transfer. */
  timeoutMs: number;
  /** DNS over TLS instead of UDP/TCP. */
  tls?: { rejectUnauthorized: boolean; servername?: string; ca?: Buffer; cert?: Buffer; key?: Buffer };
}

/** A network failure talking to the server; worth retrying unless the server's certificate is refused. */
export class DnsTransportError extends HostwardenError {
  constructor(message: string, cause?: unknown, transient = true) {
    super('DNS_TRANSPORT_FAILED', message, { transient, cause });
  }
}

/** Certificate problems do not go away by retrying; they need configuration. */
function isCertificateError(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS_/.test(code);
}

export interface DnsTransport {
  exchange(request: Buffer): Promise<Buffer>;
  /** Streams the response messages to `onMessage` until it returns true (transfer complete). */
  transfer(request: Buffer, onMessage: (message: Buffer) => boolean): Promise<void>;
}

export class NetworkTransport implements DnsTransport {
  private readonly options: TransportOptions;

  constructor(options: TransportOptions) {
    this.options = options;
  }

  private where(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  async exchange(request: Buffer): Promise<Buffer> {
    if (this.options.tls === undefined && request.length <= UDP_LIMIT) {
      const reply = await this.udp(request);
      if (!(readHeader(reply)?.truncated ?? false)) return reply;
    }
    let answer: Buffer | undefined;
    await this.stream(request, (m) => {
      answer = m;
      return true;
    });
    if (answer === undefined) throw new DnsTransportError(`no answer from ${this.where()}`);
    return answer;
  }

  transfer(request: Buffer, onMessage: (message: Buffer) => boolean): Promise<void> {
    return this.stream(request, onMessage);
  }

  private udp(request: Buffer): Promise<Buffer> {
    const { host, port, timeoutMs } = this.options;
    const id = request.readUInt16BE(0);
    return new Promise((resolve, reject) => {
      const sock = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
      let settled = false;
      const finish = (err: Error | undefined, reply?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        sock.close();
        if (err !== undefined) reject(err);
        else resolve(reply as Buffer);
      };
      const timer = setTimeout(() => finish(new DnsTransportError(`timeout after ${timeoutMs} ms waiting for ${this.where()} (udp)`)), timeoutMs);
      sock.on('error', (err) => finish(new DnsTransportError(`${this.where()} (udp): ${err.message}`, err)));
      sock.on('message', (msg) => {
        // Answers to other queries (late replies, spoofing attempts) are ignored.
        if (msg.length >= 12 && msg.readUInt16BE(0) === id) finish(undefined, msg);
      });
      // A connected socket reports ICMP port unreachable as ECONNREFUSED instead of timing out.
      sock.connect(port, host, () => sock.send(request));
    });
  }

  private open(): Socket {
    const { host, port, tls } = this.options;
    if (tls === undefined) return netConnect({ host, port });
    return tlsConnect({
      host,
      port,
      rejectUnauthorized: tls.rejectUnauthorized,
      ALPNProtocols: ['dot'],
      ...(tls.servername === undefined ? (isIPv6(host) || /^[\d.]+$/.test(host) ? {} : { servername: host }) : { servername: tls.servername }),
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls.cert === undefined || tls.key === undefined ? {} : { cert: tls.cert, key: tls.key }),
    });
  }

  private stream(request: Buffer, onMessage: (message: Buffer) => boolean): Promise<void> {
    const { timeoutMs } = this.options;
    const proto = this.options.tls === undefined ? 'tcp' : 'tls';
    return new Promise((resolve, reject) => {
      const sock = this.open();
      let settled = false;
      let pending: Buffer = Buffer.alloc(0);
      const finish = (err?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        sock.destroy();
        if (err === undefined) resolve();
        else reject(err);
      };
      const timer = setTimeout(() => finish(new DnsTransportError(`timeout after ${timeoutMs} ms waiting for ${this.where()} (${proto})`)), timeoutMs);
      sock.on('error', (err) => finish(new DnsTransportError(`${this.where()} (${proto}): ${err.message}`, err, !isCertificateError(err))));
      sock.on('close', () => finish(new DnsTransportError(`${this.where()} (${proto}) closed the connection before the answer was complete`)));
      sock.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        while (!settled && pending.length >= 2) {
          const len = pending.readUInt16BE(0);
          if (pending.length < 2 + len) break;
          const msg = Buffer.from(pending.subarray(2, 2 + len));
          pending = pending.subarray(2 + len);
          let done: boolean;
          try {
            done = onMessage(msg);
          } catch (err) {
            finish(err as Error);
            return;
          }
          if (done) finish();
        }
      });
      const frame = Buffer.alloc(2 + request.length);
      frame.writeUInt16BE(request.length, 0);
      request.copy(frame, 2);
      sock.once(this.options.tls === undefined ? 'connect' : 'secureConnect', () => sock.write(frame));
    });
  }
}
