/**
 * The bounds on reading an uploaded (or upstream) archive, and the refusals that name them
 * (docs/security.md, "Limits on untrusted content"). Every refusal is a 400 `invalid_distribution`
 * whose message starts as Warehouse's do.
 */
import { LarderError } from '../base/errors.js';

const MiB = 1024 * 1024;

/** Warehouse's decompression-bomb rule: above 64 MiB unpacked, at most 50 times the packed size. */
export const COMPRESSION_RATIO_MIN_SIZE = 64 * MiB;
export const COMPRESSION_RATIO_THRESHOLD = 50;
/** Members of a tar, entries of a zip's central directory; the largest real wheels and sdists hold tens of thousands. */
export const MAX_ARCHIVE_ENTRIES = 200_000;
/** Bytes of one entry name: Linux's PATH_MAX; no installer can write a longer path. */
export const MAX_ENTRY_NAME_BYTES = 4096;
/** Bytes of one tar pax or GNU long-name header; real ones hold a path and a few attributes. */
export const MAX_TAR_EXTENDED_HEADER = 1 * MiB;
/** pax / long-name headers in a row before a member; a real member has at most three. */
export const MAX_TAR_EXTENDED_HEADERS_IN_A_ROW = 8;
/** Largest METADATA file read from a wheel; a real one is a few kB, a long description may reach a few hundred. */
export const MAX_METADATA_SIZE = 10 * MiB;
/** Distinct top-level `*.dist-info` directories remembered while looking for a wheel's METADATA leniently. */
export const MAX_DIST_INFO_DIRS = 64;

export const invalidDist = (detail: string) => new LarderError('invalid_distribution', `Invalid distribution file. ${detail}`);

export const ratioExceeded = () => invalidDist(`File exceeds compression ratio of ${COMPRESSION_RATIO_THRESHOLD}`);

export const exceedsRatio = (unpacked: number, packed: number): boolean =>
  unpacked > COMPRESSION_RATIO_MIN_SIZE && unpacked / packed > COMPRESSION_RATIO_THRESHOLD;

export const tooManyEntries = () => invalidDist(`The archive has more than ${MAX_ARCHIVE_ENTRIES.toLocaleString('en-US')} entries.`);

export const nameTooLong = () => invalidDist(`An entry name in the archive is longer than ${MAX_ENTRY_NAME_BYTES} bytes.`);

export const tarNotAccepted = (detail: string) => invalidDist(`tar archive not accepted: ${detail}`);
