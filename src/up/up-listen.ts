/**
 * Where `svc up` runs the gateway for a fleet with local nodes (docs/design.md D27): at the
 * `gateway` section's address when that is an address of this machine (a loopback name, one of its
 * interfaces' addresses, or its host name, which is bound on every interface), else
 * 127.0.0.1:4000. Pure: the section's url and this machine's names in, a listen address out.
 */
export const UP_FALLBACK_LISTEN = '127.0.0.1:4000';

export interface ThisMachine {
  /** Every address of this machine's interfaces (os.networkInterfaces()). */
  readonly addresses: readonly string[];
  /** Its host name (os.hostname()). */
  readonly hostname: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

export function upListenAddress(url: string | undefined, machine: ThisMachine): string {
  if (url === undefined) {
    return UP_FALLBACK_LISTEN;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return UP_FALLBACK_LISTEN;
  }
  if (parsed.protocol !== 'http:') {
    // An https address is something in front of the gateway (a proxy), never its own listen.
    return UP_FALLBACK_LISTEN;
  }
  const port = parsed.port === '' ? '80' : parsed.port;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (LOOPBACK.has(host)) {
    return `127.0.0.1:${port}`;
  }
  if (machine.addresses.some((address) => address.toLowerCase() === host)) {
    return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }
  if (host === machine.hostname.toLowerCase()) {
    return `:${port}`;
  }
  return UP_FALLBACK_LISTEN;
}
