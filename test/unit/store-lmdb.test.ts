/** The storage contract for the embedded backend: LMDB under data/meta, blobs on the filesystem under data/blobs. */
import { openStorage } from '../../src/store/local/open-storage.js';
import { storageContract } from './helpers/storage-contract.js';

storageContract('LMDB + filesystem', openStorage);
