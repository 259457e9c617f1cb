/** Starts a real larder on an ephemeral port with a fresh data directory. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLarder, type Larder, type LarderOptions } from '../../src/app.js';
import { PasswordHasher } from '../../src/auth/password-hasher.js';
import { newToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config/load.js';
import type { Settings } from '../../src/config/schema.js';

export interface TestLarder {
  url: string;
  data: string;
  larder: Larder;
  addUser(name: string, password: string, admin?: boolean): Promise<void>;
  addToken(user: string, projects?: string[]): Promise<string>;
  /** Stops the server; the data directory stays for a restart unless `removeData`. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startLarder(overrides: Partial<Settings> = {}, dataDir?: string, options: LarderOptions = {}): Promise<TestLarder> {
  const data = dataDir ?? (await mkdtemp(join(tmpdir(), 'larder-test-')));
  const config = loadConfig({
    env: {},
    overrides: { host: '127.0.0.1', port: 0, data, upstream: null, logLevel: 'silent', ...overrides },
  });
  const larder = await createLarder(config, options);
  const url = await larder.listen();
  const passwords = new PasswordHasher({ threads: 1 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await passwords.close();
    await larder.close(2000);
  };
  return {
    url,
    data,
    larder,
    async addUser(name, password, admin = false) {
      await larder.meta.putUser({ name, passwordHash: await passwords.hash(password), admin, createdAt: new Date().toISOString() });
    },
    async addToken(user, projects) {
      const { token, record } = newToken(user, { projects: projects ?? null, description: null, expiresAt: null }, new Date());
      await larder.meta.putToken(record);
      return token;
    },
    stop,
    async close() {
      await stop();
      await rm(data, { recursive: true, force: true });
    },
  };
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
