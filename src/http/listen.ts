/** Start and stop for the project's HTTP(S) servers (ops, webhook provider, admission). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port ('' = every interface; port 0 = a free one) and resolves with the address. */
export async function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host === '' ? undefined : host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** Closes the server and every open connection, keep-alive ones included. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
