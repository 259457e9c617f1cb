/**
 * The listening server around the one entry: it counts requests in flight so that closing lets them (and
 * whatever else `close` is told to wait for, such as upstream downloads) finish within a grace period, then
 * closes every connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class HttpServer {
  private server: Server | null = null;
  private inflight = 0;

  constructor(
    private readonly handle: Handler,
    private readonly logger: Logger,
  ) {}

  /** Starts listening; resolves with the URL the server is reachable at. */
  async listen(port: number, host: string): Promise<string> {
    const server = createServer((req, res) => {
      this.inflight++;
      res.once('close', () => this.inflight--);
      this.handle(req, res);
    });
    server.keepAliveTimeout = 65_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /**
   * Stops accepting connections and waits up to `graceMs` for the requests in flight and `pending`, then
   * closes every connection. The grace is real time, measured by a timer rather than an injected clock,
   * which a test may hold still.
   */
  async close(graceMs: number, pending: Promise<unknown>): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let pendingDone = false;
    void pending.then(() => (pendingDone = true));
    let graceOver = false;
    const grace = setTimeout(() => (graceOver = true), graceMs);
    while ((this.inflight > 0 || !pendingDone) && !graceOver) {
      await sleep(25);
      server.closeIdleConnections();
    }
    clearTimeout(grace);
    if (this.inflight > 0 || !pendingDone) this.logger.warn({ inflight: this.inflight }, 'grace period over; closing the remaining connections');
    server.closeAllConnections();
    await closed;
  }
}
