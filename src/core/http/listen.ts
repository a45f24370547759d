/**
 * Binds an HTTP server to a parsed listen address and reports the address it really got, so a
 * listener on port 0 can tell tests and scripts where it is (docs/design.md "Names": every listen
 * flag accepts port 0 and the process prints what it bound).
 */
import type { Server } from 'node:http';

import { SvcError } from '../errors.ts';
import { formatListenAddress, type ListenAddress } from './listen-address.ts';

export async function listen(server: Server, address: ListenAddress): Promise<ListenAddress> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      const why = error.code === 'EADDRINUSE' ? 'the address is already in use' : error.message;
      reject(
        new SvcError(
          'ERR_LISTEN_FAILED',
          `cannot listen on ${formatListenAddress(address)}: ${why}`,
          {
            cause: error,
          },
        ),
      );
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(address.port, address.host === '' ? undefined : address.host);
  });
  return boundAddress(server);
}

/** The address a listening server holds, in the same shape as a parsed listen address. */
export function boundAddress(server: Server): ListenAddress {
  const info = server.address();
  if (info === null || typeof info === 'string') {
    throw new SvcError('ERR_INTERNAL', 'the server is not listening on a TCP address');
  }
  return { host: info.address, port: info.port };
}

/** `http://host:port` for a bound address, brackets around IPv6 literals. */
export function httpUrl(address: ListenAddress): string {
  return `http://${formatListenAddress(address)}`;
}
