/** The FileBody of a verified blob in the store, however the store keeps it. */
import type { FileBody } from '../model/documents.js';
import type { BlobStore } from '../store/blob-store.js';

export function storedBody(blobs: BlobStore, sha256: string, size: number, download: { filename: string; contentType: string }): FileBody {
  const path = blobs.localPath(sha256);
  return {
    kind: 'stored',
    size,
    sha256,
    etag: `"${sha256}"`,
    contentType: download.contentType,
    path,
    read: (range) => blobs.read(sha256, range),
    // Bytes on this machine's disk are always served from there.
    directUrl: path === null ? () => blobs.directUrl(sha256, download) : null,
  };
}
