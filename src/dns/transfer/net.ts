/**
 * The two exchanges the transfer client needs: one UDP query and reply, and one TCP query whose
 * answer is a stream of length-prefixed messages (RFC 7766). Both end at a deadline; the TCP one
 * also at `maxBytes` of answer, and when the caller says the stream is complete.
 */
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { isIPv6 } from 'node:net';
import { TransferError } from './errors.ts';

export interface Target {
  host: string;
  port: number;
}

export function where(t: Target): string {
  return isIPv6(t.host) ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
}

/** Sends `query` once over UDP; resolves with the first reply that `accept` takes. */
export function udpExchange(zone: string, target: Target, query: Buffer, timeoutMs: number, accept: (msg: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
    const finish = (err: Error | undefined, msg?: Buffer): void => {
      clearTimeout(timer);
      socket.close();
      if (err !== undefined) reject(err);
      else resolve(msg as Buffer);
    };
    const timer = setTimeout(() => finish(new TransferError(zone, 'timeout', `no UDP answer from ${where(target)} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => finish(new TransferError(zone, 'transport', `UDP to ${where(target)}: ${err.message}`, { cause: err })));
    socket.on('message', (msg) => {
      if (accept(msg)) finish(undefined, msg);
    });
    socket.send(query, target.port, target.host);
  });
}

export interface StreamLimits {
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Sends `query` over TCP and hands each answer message to `onMessage` until it returns true (the
 * stream is complete). An error thrown by `onMessage` ends the exchange with that error.
 */
export function tcpStream(zone: string, target: Target, query: Buffer, limits: StreamLimits, onMessage: (msg: Buffer) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.host, port: target.port });
    let pending: Buffer = Buffer.alloc(0);
    let total = 0;
    let settled = false;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err === undefined) resolve();
      else reject(err);
    };
    const timer = setTimeout(
      () => finish(new TransferError(zone, 'timeout', `the TCP exchange with ${where(target)} did not finish within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    socket.on('connect', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(query.length);
      socket.write(Buffer.concat([len, query]));
    });
    socket.on('error', (err) => finish(new TransferError(zone, 'transport', `TCP to ${where(target)}: ${err.message}`, { cause: err })));
    socket.on('close', () => finish(new TransferError(zone, 'transport', `${where(target)} closed the connection before the answer was complete`)));
    socket.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.maxBytes) return finish(new TransferError(zone, 'too-large', `the answer from ${where(target)} exceeds ${limits.maxBytes} bytes`));
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        // Bounded: each round consumes at least the 2-byte length of a message.
        while (!settled && pending.length >= 2) {
          const len = pending.readUInt16BE(0);
          if (pending.length < 2 + len) break;
          const msg = pending.subarray(2, 2 + len);
          pending = pending.subarray(2 + len);
          if (onMessage(msg)) finish();
        }
      } catch (err) {
        finish(err as Error);
      }
    });
  });
}
