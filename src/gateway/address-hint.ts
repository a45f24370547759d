/**
 * The start-up hint to name this gateway's address in the fleet file's `gateway` section
 * (spec §4.2 "Startup"), given only when it helps: the section is missing or names another
 * address. Pure: the section's url and the bound address in, the line or nothing out.
 */
import { formatListenAddress, type ListenAddress } from '../core/http/listen-address.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

/** Whether `url` reaches the gateway bound at `bound`. */
export function namesAddress(url: string, bound: ListenAddress): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  if (port !== bound.port) {
    return false;
  }
  // A wildcard bind answers on every name this machine has; only the operator knows them.
  if (isWildcard(bound.host)) {
    return true;
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const boundHost = bound.host.toLowerCase();
  return host === boundHost || (LOOPBACK_NAMES.has(host) && LOOPBACK_NAMES.has(boundHost));
}

export function gatewayAddressHint(
  section: { readonly url: string } | undefined,
  bound: ListenAddress,
): string | undefined {
  if (section !== undefined && namesAddress(section.url, bound)) {
    return undefined;
  }
  const host = isWildcard(bound.host)
    ? '<this-machine>'
    : formatListenAddress(bound).replace(/:\d+$/, '');
  const address = `http://${host}:${bound.port}`;
  return section === undefined
    ? `Name ${address} in the fleet file's gateway section (url:), so agents launched through the fleet file find this gateway`
    : `The fleet file's gateway section names ${section.url}, but this gateway listens on ${address}: name that there`;
}
