/**
 * Start-up warm-up. The first request after a start otherwise pays for compiling the code it runs: about
 * 15 ms for a cached project page, against well under a millisecond once warm. Before larder reports that
 * it listens, it renders a made-up project page in each format (with its gzip form and ETag, through a
 * throwaway cache) and sends one request to itself, so the first client runs compiled code.
 */
import { request } from 'node:http';
import type { FileEntry, ProjectPage } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { HttpDeps } from './deps.js';
import { negotiateSimple } from './negotiate.js';
import { RenderedCache } from './rendered-cache.js';
import { projectPageAnswer } from './routes/simple.js';

const HASH = 'a'.repeat(64);

function madeUpPage(): ProjectPage {
  const file = (filename: string, version: string, yanked: boolean): FileEntry => ({
    filename,
    version,
    sourceUrl: `https://warm-up.invalid/files/${filename}`,
    hashes: { sha256: HASH },
    requiresPython: '>=3.8',
    yanked,
    yankedReason: yanked ? 'warm-up' : null,
    coreMetadata: { sha256: HASH },
    size: 1234,
    uploadTime: '2026-01-01T00:00:00.000000Z',
    hasSig: false,
  });
  const files = [
    file('warm_up-1.0-py3-none-any.whl', '1.0', false),
    file('warm_up-1.0.tar.gz', '1.0', false),
    file('warm_up-0.9-py3-none-any.whl', '0.9', true),
  ];
  return { name: 'warm-up' as ProjectName, displayName: 'warm-up', serial: 1, files, versions: ['0.9', '1.0'], origin: 'upstream' };
}

export async function warmUp(url: string, deps: HttpDeps): Promise<void> {
  const scratch: HttpDeps = { ...deps, rendered: new RenderedCache(1 << 20) };
  const page = madeUpPage();
  for (const accept of ['application/vnd.pypi.simple.v1+json', 'text/html']) {
    const request = { acceptEncoding: 'gzip', ifNoneMatch: undefined, provenance: { cache: 'hit' as const } };
    await projectPageAnswer(scratch, page, negotiateSimple(undefined, accept), request);
  }
  await new Promise<void>((resolve) => {
    const req = request(`${url}/health`, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', () => resolve());
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end();
  });
}
