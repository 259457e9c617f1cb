/** The legacy upload API: POST /legacy/ (also /legacy, and POST / for clients given the bare server URL). */
import type { Routes } from '../route-group.js';
import type { Context } from 'koa';
import { diskFullError } from '../../store/disk-space.js';
import { receiveUpload } from '../../upload/receive.js';
import { validateUpload } from '../../upload/validate.js';
import type { HttpDeps } from '../deps.js';
import { requireIdentity } from '../identity.js';

/** Free space an upload leaves for the commit that records it when the index is LMDB on the data disk. */
const LMDB_HEADROOM = 16 * 1024 * 1024;

export function registerUploadRoutes(router: Routes, deps: HttpDeps): void {
  const upload = async (ctx: Context) => {
    const who = await requireIdentity(ctx, deps.authenticator, 'upload');
    const raw = await receiveUpload(ctx.req, {
      tmpDir: deps.blobs.tmpDir,
      maxFileSize: deps.config.maxUploadSize,
      query: ctx.query,
    });
    try {
      const upload = await validateUpload(raw);
      // With LMDB the record is a commit on the data disk: never start one that the disk cannot take.
      if (!(await deps.space.allows(0, Math.min(deps.config.diskReserve, LMDB_HEADROOM)))) {
        throw diskFullError("the data disk is too full for the upload's record");
      }
      deps.metrics.uploads.inc({ outcome: await deps.publisher.publish(upload, who) });
    } catch (err) {
      deps.metrics.uploads.inc({ outcome: 'refused' });
      throw err;
    } finally {
      await raw.cleanup();
    }
    ctx.status = 200;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '';
  };
  router.post('/legacy/', upload);
  // Without the slash too: twine treats any 3xx to an upload as fatal (standards §12), so PyPI's 308
  // would only turn `--repository-url http://host/legacy` into an error.
  router.post('/legacy', upload);
  router.post('/', upload);
}
