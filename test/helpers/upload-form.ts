/** Builds the multipart form twine sends for a distribution (legacy upload API field names), and publishes with it. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { BuiltDist } from '../fixtures/dists.js';

export async function uploadForm(dist: BuiltDist, extra: Record<string, string | string[]> = {}, omit: string[] = []): Promise<FormData> {
  const fields: Record<string, string | string[]> = {
    ':action': 'file_upload',
    protocol_version: '1',
    metadata_version: '2.1',
    name: dist.name,
    version: dist.version,
    summary: dist.summary,
    filetype: dist.packagetype,
    pyversion: dist.pythonVersion,
    sha256_digest: dist.sha256,
    blake2_256_digest: dist.blake2b_256,
    ...(dist.requiresPython ? { requires_python: dist.requiresPython } : {}),
    ...(dist.requiresDist.length ? { requires_dist: dist.requiresDist } : {}),
    ...extra,
  };
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (omit.includes(key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) form.append(key, v);
  }
  if (!omit.includes('content')) {
    form.append('content', new Blob([await readFile(dist.path)], { type: 'application/octet-stream' }), dist.filename);
  }
  return form;
}

/** Sends `dist` to the legacy upload API of the larder at `url` with `auth` as the Authorization header, failing with larder's answer unless it is accepted (200). */
export async function publish(url: string, auth: string, dist: BuiltDist, extra: Record<string, string | string[]> = {}): Promise<void> {
  const res = await fetch(`${url}/legacy/`, { method: 'POST', headers: { Authorization: auth }, body: await uploadForm(dist, extra) });
  assert.equal(res.status, 200, await res.text());
}
