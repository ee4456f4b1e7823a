/** Connection floods for the listener-limit tests: TCP connections that never send a byte. */
import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** Opens `n` TCP connections that send nothing; resolves once all are connected (or closed). */
export async function idleConnections(port: number, n: number): Promise<{ sockets: Socket[]; closed: () => number }> {
  const sockets: Socket[] = [];
  let closed = 0;
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(port, '127.0.0.1');
          // Reading, so the server's close is seen (a paused socket never ends).
          s.resume();
          s.on('connect', () => resolve());
          s.on('error', () => undefined);
          s.on('close', () => {
            closed++;
            resolve();
          });
          sockets.push(s);
        }),
    ),
  );
  return { sockets, closed: () => closed };
}
