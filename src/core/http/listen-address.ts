/**
 * Listen addresses as the user writes them (`:4242`, `127.0.0.1:0`, `[::1]:4242`, `box.lan:80`)
 * and the loopback test that decides whether a listener may go without a token (spec §5 rule 3).
 */
import { isIP, isIPv4 } from 'node:net';

import { SvcError } from '../errors.ts';

export interface ListenAddress {
  /** Host to bind; '' means every interface. IPv6 literals are held without brackets. */
  readonly host: string;
  /** 0 asks the system for a free port; the bound one is reported after listening. */
  readonly port: number;
}

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Parses `[host]:port`. `flag` names the option in errors (`--api-addr`, `--listen`).
 * Bare ports are refused with a hint so `4242` cannot silently mean something else.
 */
export function parseListenAddress(text: string, flag: string): ListenAddress {
  const fail = (why: string): SvcError =>
    new SvcError('ERR_LISTEN_ADDRESS', `${flag} "${text}": ${why}`);

  if (/^\d+$/.test(text)) {
    throw fail(`a listen address needs a colon before the port; did you mean ":${text}"?`);
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0) {
    throw fail('expected host:port, :port or [ipv6]:port');
  }
  let host = text.slice(0, colon);
  const portText = text.slice(colon + 1);

  if (host.startsWith('[') || host.endsWith(']')) {
    if (!(host.startsWith('[') && host.endsWith(']'))) {
      throw fail('unbalanced brackets around the IPv6 address');
    }
    host = host.slice(1, -1);
    if (isIP(host) !== 6) {
      throw fail(`"${host}" in brackets is not an IPv6 address`);
    }
  } else if (host.includes(':')) {
    throw fail('put an IPv6 address in brackets, as in [::1]:4242');
  } else if (host !== '' && isIP(host) === 0 && !HOSTNAME.test(host)) {
    throw fail(`"${host}" is not a host name or IP address`);
  }

  if (!/^\d{1,5}$/.test(portText)) {
    throw fail(portText === '' ? 'the port is missing' : `port "${portText}" is not a number`);
  }
  const port = Number(portText);
  if (port > 65535) {
    throw fail(`port ${port} is out of range (0-65535)`);
  }
  return { host, port };
}

/** Loopback is 127.0.0.0/8, ::1 (also IPv4-mapped 127/8) and the name `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === 'localhost' || lower === 'localhost.') {
    return true;
  }
  if (isIPv4(lower)) {
    return lower.split('.')[0] === '127';
  }
  if (isIP(lower) === 6) {
    const lastColon = lower.lastIndexOf(':');
    const embedded = lower.slice(lastColon + 1);
    if (isIPv4(embedded)) {
      // IPv4-mapped form ::ffff:a.b.c.d: loopback when the mapped address is.
      const prefix = expandIPv6(`${lower.slice(0, lastColon + 1)}0:0`);
      return prefix === '0000:0000:0000:0000:0000:ffff:0000:0000' && isLoopbackHost(embedded);
    }
    return expandIPv6(lower) === '0000:0000:0000:0000:0000:0000:0000:0001';
  }
  return false;
}

/** Writes an address back the way the user would type it: `127.0.0.1:4242`, `[::1]:0`, `:4242`. */
export function formatListenAddress({ host, port }: ListenAddress): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function expandIPv6(address: string): string {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  return groups.map((group) => group.padStart(4, '0')).join(':');
}
