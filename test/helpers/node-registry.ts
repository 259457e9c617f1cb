/**
 * A small npm registry on loopback serving one package, node-<platform>-<arch> at the version of the Node
 * running the tests (its packument and its tarball, whose bin/node is that Node's binary), as the npm registry
 * serves the official builds. It counts the requests it answers; any other path is a 404.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { NODE_PACKAGE, nodePackageJson } from './old-node.js';

export interface NodeRegistry {
  url: string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function writeTarball(file: string): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, createGzip({ level: 1 }), createWriteStream(file));
  pack.entry({ name: 'package/package.json' }, JSON.stringify(nodePackageJson()));
  const binary = pack.entry({ name: 'package/bin/node', mode: 0o755, size: statSync(process.execPath).size });
  await pipeline(createReadStream(process.execPath), binary);
  pack.finalize();
  await done;
}

/** Serves node-<platform>-<arch> from a tarball written into `dir`; with `stallTarball`, sends only its first MiB. */
export async function startNodeRegistry(dir: string, { stallTarball = false } = {}): Promise<NodeRegistry> {
  const tarball = join(dir, `${NODE_PACKAGE}-${process.versions.node}.tgz`);
  await writeTarball(tarball);
  const shasum = createHash('sha1').update(readFileSync(tarball)).digest('hex');
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === `/${NODE_PACKAGE}`) {
      const version = { ...nodePackageJson(), dist: { tarball: `${base}/tarball.tgz`, shasum } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: NODE_PACKAGE, 'dist-tags': { latest: process.versions.node }, versions: { [process.versions.node]: version } }));
    } else if (req.url === '/tarball.tgz') {
      res.setHeader('content-length', statSync(tarball).size);
      createReadStream(tarball, stallTarball ? { end: 1024 * 1024 - 1 } : {}).pipe(res, { end: !stallTarball });
    } else {
      res.statusCode = 404;
      res.end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
