/**
 * LISTEN on one channel over a connection of its own that comes back by itself: when it is lost, `onLost`
 * runs and it is reopened (attempts at most 2 s apart); `onListening` runs after every (re)connection,
 * since notifications sent meanwhile are lost.
 */
import type pg from 'pg';
import type { PgDatabase } from './database.js';

const MAX_DELAY_MS = 2000;

export class Listener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | undefined;
  private attempts = 0;
  private closed = false;

  constructor(
    private readonly db: PgDatabase,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly onListening: () => void,
    private readonly onLost: () => void,
  ) {}

  /** Listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = this.db.newClient();
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.onNotify(message.payload ?? '');
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      this.lost(client);
      throw err;
    }
    this.attempts = 0;
    this.onListening();
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    if (this.closed) return;
    this.onLost();
    const delay = Math.min(100 * 2 ** this.attempts, MAX_DELAY_MS);
    this.attempts += 1;
    this.timer = setTimeout(() => {
      if (!this.closed) this.connect().catch((err: unknown) => this.db.onError(this.db.unavailable(err)));
    }, delay);
    this.timer.unref();
  }
}
