/** Offline, what is not cached cannot be fetched: the one error the document cache and the file cache answer with. */
import { LarderError } from '../base/errors.js';

export const offlineNotCached = (what: string) => new LarderError('offline_not_cached', `larder is offline and ${what} is not cached.`);
