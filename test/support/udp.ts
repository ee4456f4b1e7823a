/** Raw DNS-over-UDP for tests that send bytes dig would refuse to build. */
import { createSocket } from 'node:dgram';

/** Sends `msg` from a fresh socket and resolves with the first reply, or undefined after `ms`. */
export function udpExchange(port: number, msg: Buffer, ms = 1000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, ms);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    });
    s.send(msg, port, '127.0.0.1');
  });
}
