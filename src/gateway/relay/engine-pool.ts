/**
 * The engine client's kept connections (engine-client.ts): one pool per engine origin, each
 * connection carrying one exchange at a time. Idle connections are unreferenced, so an idle pool
 * never holds the process open, and are not reused after 4 s, under llama-server's own 5 s.
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** What a connection tells the exchange on it. */
export interface ConnectionUser {
  read(data: Buffer): void;
  /** The connection ended or closed. */
  closed(): void;
  fail(error: Error): void;
}

/** Kept connections are not reused after this long idle (llama-server closes them at 5 s). */
const KEEP_ALIVE_MS = 4_000;
/** A connection not made in this long fails (a host that drops packets, not refuses them). */
const CONNECT_TIMEOUT_MS = 10_000;
/** Idle time before TCP keep-alive probes an engine connection. */
const KEEPALIVE_PROBE_MS = 60_000;
/** At most this many idle connections are kept per engine origin. */
const MAX_IDLE = 64;

/** Where one engine origin is reached, parsed once. */
export class OriginPool {
  readonly idle: EngineConnection[] = [];
  readonly host: string;
  readonly hostHeader: string;
  readonly port: number;
  readonly tls: boolean;

  constructor(origin: string) {
    const url = new URL(origin);
    this.tls = url.protocol === 'https:';
    this.host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = Number(url.port || (this.tls ? 443 : 80));
    this.hostHeader = url.host;
  }

  /** A kept connection the engine has not closed, else a new one. */
  acquire(): EngineConnection {
    const now = performance.now();
    for (let conn = this.idle.pop(); conn !== undefined; conn = this.idle.pop()) {
      const { socket } = conn;
      if (socket.writable && !socket.readableEnded && now - conn.idleSince < KEEP_ALIVE_MS) {
        socket.ref();
        return conn;
      }
      socket.destroy();
    }
    return this.connect();
  }

  /** A new connection. */
  connect(): EngineConnection {
    const socket = this.tls
      ? tlsConnect({
          host: this.host,
          port: this.port,
          ALPNProtocols: ['http/1.1'],
          ...(isIP(this.host) === 0 ? { servername: this.host } : {}),
        })
      : tcpConnect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    // A stream has no time limit: TCP keep-alive is what finds an engine host that vanished.
    socket.setKeepAlive(true, KEEPALIVE_PROBE_MS);
    const timer = setTimeout(() => {
      socket.destroy(
        Object.assign(
          new Error(
            `connect ETIMEDOUT ${this.hostHeader} (no answer in ${CONNECT_TIMEOUT_MS / 1000} s)`,
          ),
          { code: 'ETIMEDOUT' },
        ),
      );
    }, CONNECT_TIMEOUT_MS);
    socket.once(this.tls ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return new EngineConnection(socket, this);
  }

  release(conn: EngineConnection): void {
    if (this.idle.length >= MAX_IDLE) {
      conn.socket.destroy();
      return;
    }
    conn.idleSince = performance.now();
    // A reader that paused the last piece of a reply must not leave the next reply paused.
    conn.socket.resume();
    conn.socket.unref();
    this.idle.push(conn);
  }

  forget(conn: EngineConnection): void {
    const index = this.idle.indexOf(conn);
    if (index >= 0) {
      this.idle.splice(index, 1);
    }
  }
}

/** One socket to an engine and the exchange on it, if any. */
export class EngineConnection {
  exchange: ConnectionUser | undefined;
  idleSince = 0;

  constructor(
    readonly socket: Socket,
    private readonly pool: OriginPool,
  ) {
    socket.on('data', (data: Buffer) => {
      if (this.exchange === undefined) {
        // Nothing was asked: an idle connection that speaks is not trusted again.
        socket.destroy();
      } else {
        this.exchange.read(data);
      }
    });
    socket.on('end', () => {
      // Forgotten at once, not at 'close': a request arriving in between must not pick it.
      this.pool.forget(this);
      this.exchange?.closed();
    });
    socket.on('error', (error: Error) => this.exchange?.fail(error));
    socket.on('close', () => {
      this.pool.forget(this);
      this.exchange?.closed();
    });
  }

  done(keepAlive: boolean): void {
    this.exchange = undefined;
    if (keepAlive && !this.socket.destroyed) {
      this.pool.release(this);
    } else {
      this.socket.destroy();
    }
  }
}
