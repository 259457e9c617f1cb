/**
 * Every error code a client can receive, with its HTTP status and what it means. A `LarderError` is built
 * from a code (its status comes from here) and a message naming the values at hand; `docs/errors.md` is
 * this table for people, and test/unit/error-catalogue.test.ts keeps the two and the throw sites in step.
 */
export const ERROR_CATALOGUE = {
  // Requests in general
  not_found: { status: 404, meaning: 'No such project, release, file, user or page.' },
  invalid_request: { status: 400, meaning: 'The request body could not be read (e.g. malformed JSON sent to the admin API).' },
  request_too_large: { status: 413, meaning: 'The request body is larger than the route accepts (64 KB for the admin API).' },
  unsupported_media_type: {
    status: 415,
    meaning: 'The body is not of a type the route reads (uploads are multipart/form-data; the admin API reads application/json only).',
  },
  missing_field: { status: 400, meaning: 'An admin API JSON body lacks a required string field.' },
  invalid_field: { status: 400, meaning: 'An admin API JSON body has a field that is not a string.' },
  invalid_publisher: { status: 400, meaning: 'A trusted publisher to add has no claims, a bad issuer URL, a malformed claim or a JWK Set that is not one.' },
  invalid_name: { status: 400, meaning: 'A project name is not a valid PEP 508 name, or is longer than 200 characters.' },
  version_too_long: { status: 400, meaning: 'A version sent by the client is longer than 255 bytes.' },
  filename_too_long: { status: 400, meaning: 'A file name sent by the client is longer than 255 bytes.' },
  invalid_filename: { status: 400, meaning: 'A file name (in a URL or an upload) has characters larder refuses, such as a path.' },
  invalid_host: {
    status: 400,
    meaning: 'The request has more than one Host header, or one that is not host[:port] (a DNS name or IP address, optional port).',
  },
  range_not_satisfiable: { status: 416, meaning: 'A Range request starts beyond the end of the file.' },
  internal: { status: 500, meaning: 'An unexpected failure; the details are in the server log.' },
  disk_full: { status: 507, meaning: 'The data disk is full (or below LARDER_DISK_RESERVE): nothing was stored.' },
  backend_unavailable: {
    status: 503,
    meaning:
      'A shared backend (the PostgreSQL database, the S3 blob store) cannot be reached or is too slow: uploads and other changes are refused until it is back.',
  },

  // Who may do what
  unauthorized: { status: 401, meaning: 'Credentials are needed for this request (reads of a private index, every write).' },
  invalid_credentials: { status: 403, meaning: 'The user name and password, or the API token, are wrong.' },
  token_expired: { status: 403, meaning: 'The API token is past the expiry it was created with; the message names it and when it expired. Create a new one.' },
  too_many_failed_logins: {
    status: 429,
    meaning: 'Too many failed logins from this address, or for this user name from this address; Retry-After says when to try again.',
  },
  password_checks_busy: { status: 503, meaning: 'Too many password checks are queued; Retry-After says when to try again.' },
  not_allowed: { status: 403, meaning: 'The user or token may not upload to or manage this project.' },
  not_owner: { status: 403, meaning: "A maintainer tried what only the project's owners (and administrators) may do." },
  not_admin: { status: 403, meaning: 'Only an administrator may do this (allow a name that exists upstream, manage users on the web pages).' },
  metrics_token: { status: 401, meaning: '/metrics needs the bearer token set in LARDER_METRICS_TOKEN.' },
  password_required: { status: 403, meaning: 'The account and user pages were asked with an API token: they need a login with a password.' },
  invalid_form_token: { status: 403, meaning: "A web form was posted without this session's form token (a forged or stale form); reload the page." },
  cross_site_request: {
    status: 403,
    meaning:
      "A browser sent a POST, PUT, PATCH or DELETE from a page of another site (Sec-Fetch-Site: cross-site, or an Origin not larder's own); nothing was changed.",
  },

  // Upload transport (the multipart body)
  missing_content_type: { status: 400, meaning: 'An upload came without a Content-Type header.' },
  invalid_multipart: {
    status: 400,
    meaning:
      'The upload body is not well-formed multipart/form-data (no boundary or one over 70 characters, a part header over 8 KB, cut short, unknown transfer encoding).',
  },
  upload_aborted: { status: 400, meaning: 'The client went away before the upload body was complete.' },
  file_too_large: { status: 413, meaning: 'The uploaded file is larger than LARDER_MAX_FILE_SIZE.' },
  signature_too_large: { status: 413, meaning: 'The uploaded signature is larger than 1 MB.' },
  fields_too_large: { status: 413, meaning: 'The text fields of an upload add up to more than the limit (20 MB).' },
  too_many_fields: { status: 413, meaning: 'An upload has more text fields than the limit (1000), or more parts than 1000 and its two files.' },
  unexpected_file: { status: 400, meaning: 'A form field other than content or gpg_signature was sent as a file.' },
  repeated_file: { status: 400, meaning: 'An upload has more than one content (or gpg_signature) file.' },
  repeated_field: { status: 400, meaning: 'A single-valued upload field was sent more than once with different values.' },

  // Upload contents (checked in Warehouse's order)
  action_gone: { status: 410, meaning: 'The :action is one PyPI no longer supports (pre-registration, documentation).' },
  unknown_action: { status: 400, meaning: 'The upload has no :action, or one other than file_upload.' },
  unknown_protocol_version: { status: 400, meaning: 'protocol_version is not 1.' },
  invalid_filetype: { status: 400, meaning: 'filetype is missing or is not sdist or bdist_wheel.' },
  invalid_pyversion: { status: 400, meaning: 'pyversion is missing for a wheel, or not "source" for an sdist.' },
  missing_digest: { status: 400, meaning: 'The upload carries none of md5_digest, sha256_digest, blake2_256_digest.' },
  invalid_digest: { status: 400, meaning: 'A digest field is not lowercase hex of the right length.' },
  digest_mismatch: { status: 400, meaning: 'A digest field does not match the uploaded bytes.' },
  invalid_metadata_version: { status: 400, meaning: 'metadata_version is missing or not one larder knows.' },
  invalid_version: { status: 400, meaning: 'The version is missing or not a valid PEP 440 version.' },
  invalid_metadata: {
    status: 400,
    meaning:
      'A metadata field breaks a rule pypi.org checks (requires_python not a PEP 440 specifier set, a bad requirement, URL, email address or content type, a summary of two lines; docs/uploads.md), or a wheel METADATA lacks Name or Version.',
  },
  metadata_mismatch: { status: 400, meaning: "The wheel's METADATA names another project or version than the form." },
  missing_file: { status: 400, meaning: 'The upload has no content file.' },
  invalid_extension: { status: 400, meaning: 'The file name does not end in an extension allowed for the filetype.' },
  invalid_distribution: {
    status: 400,
    meaning:
      'The file is not a readable wheel or sdist (bad archive, past an archive limit, two top-level or .dist-info directories, missing METADATA/PKG-INFO, an image type).',
  },
  filename_version_mismatch: { status: 400, meaning: "The version in the file name differs from the form's version." },
  invalid_sdist_filename: { status: 400, meaning: 'The sdist file name is not <name>-<version>.tar.gz (or .zip) for the form name and version.' },
  invalid_wheel_filename: { status: 400, meaning: 'The wheel file name is malformed, has an unsupported platform tag, or names another project or version.' },
  file_exists: { status: 409, meaning: 'A different file with this name already exists in the release.' },
  filename_reused: { status: 400, meaning: 'The file name was used by a file that has since been deleted.' },
  name_exists_upstream: { status: 409, meaning: 'A new private project would shadow a project of the upstream index; an administrator can allow the name.' },
  project_archived: {
    status: 400,
    meaning: 'The project is archived (PEP 792): it keeps serving its files but takes no new uploads until an owner sets it active.',
  },
  project_quarantined: {
    status: 403,
    meaning: 'The project is quarantined (PEP 792): its pages list no files, none is served and no upload is taken until an owner sets it active.',
  },
  invalid_status: {
    status: 400,
    meaning: 'A project status is not one of active, archived, quarantined, deprecated, or its reason is not one line of at most 500 characters.',
  },
  upstream_check_failed: { status: 503, meaning: 'larder could not ask the upstream whether a new project name exists there.' },

  // The upstream (an UpstreamError, classified by UpstreamFetcher.failure; see UPSTREAM_ERROR_CODES)
  offline_not_cached: { status: 404, meaning: 'larder is offline and the page or file asked for is not cached.' },
  upstream_timeout: { status: 504, meaning: 'The upstream did not answer in time and larder has no cached copy.' },
  upstream_unreachable: { status: 502, meaning: 'The upstream could not be reached and larder has no cached copy.' },
  upstream_status: { status: 502, meaning: 'The upstream answered with an unexpected status and larder has no cached copy.' },
  upstream_invalid: { status: 502, meaning: 'The upstream sent something larder cannot read, or too much of it.' },
  upstream_refused: { status: 502, meaning: 'The upstream pointed to a host larder does not fetch from (LARDER_FILE_HOSTS).' },
  upstream_too_large: { status: 502, meaning: 'The upstream lists the file as larger than LARDER_MAX_FILE_SIZE; larder does not fetch it.' },
  upstream_hash_mismatch: { status: 502, meaning: 'The upstream sent a file whose hash or size differs from what its page lists; nothing was kept.' },

  // Supply-chain policy (docs/policy.md)
  policy_denied: {
    status: 403,
    meaning:
      'The upstream project or release matches LARDER_DENY: a project is refused; a release stays on simple pages marked yanked with the reason, and is refused as a download.',
  },
  policy_not_allowed: { status: 404, meaning: 'LARDER_ALLOW is set and the upstream project or release is not on it.' },
  policy_held_back: {
    status: 403,
    meaning:
      'The upstream file is younger than LARDER_MIN_RELEASE_AGE (the message says when it becomes available), or has no known upload time under LARDER_MIN_RELEASE_AGE_UNKNOWN=deny.',
  },
  blocked_by_advisory: {
    status: 403,
    meaning:
      'An imported security advisory blocks the upstream release (a MAL- advisory, or a vulnerability of at least LARDER_BLOCK_VULNERABLE), or the whole project (a MAL- advisory covering every version); the message names the advisory and, for a vulnerability, its severity.',
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes whose status is `S`, so a helper such as `badRequest` cannot be given a 409's code. */
export type CodeWithStatus<S extends number> = {
  [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['status'] extends S ? C : never;
}[ErrorCode];

/**
 * Error types that never reach a client as such, and what becomes of them. Only a `LarderError` is
 * answered as it is; anything else reaching the error middleware is an `internal` 500.
 */
export const INTERNAL_ERRORS = {
  UpstreamError:
    'A failed upstream request (kind: timeout, unreachable, status, invalid, refused). Served from the cache when it can be; otherwise UpstreamFetcher.failure turns it into the upstream_<kind> LarderError.',
  VerificationError: 'An upstream file whose hash or size is wrong. Turned into upstream_hash_mismatch.',
  ConfigError: 'A bad setting at start-up. The larder command prints it and exits with status 1; the server does not start.',
  UsageError: 'A bad command line. The larder command prints it and exits with status 2.',
  ImportRefused: 'larder import refuses an archive (damaged, wrong format, conflicts). Printed by the command, exit status 1; nothing is imported.',
  ExportError: 'larder export cannot write the archive. Printed by the command, exit status 1.',
  InputError: 'larder mirror cannot read a requirements or lock file (bad syntax, missing include). Printed by the command, exit status 1.',
  MarkerError: 'An environment marker larder mirror cannot parse. Reported with the requirement it belongs to; the command exits with status 1.',
  MirrorIncomplete: 'larder mirror add/sync finished with problems (listed above it). Exit status 1.',
  OsvDocumentError:
    'A document in the zip given to larder advisories import that is not an OSV advisory. The command skips it and names it; the rest is imported.',
  QueryError: 'larder audit fetched with a requirement or a --since it cannot read. The command turns it into a UsageError: printed, exit status 2.',
  NoUpstreamError: 'larder mirror with no upstream configured. Printed by the command, exit status 1.',
  BackendUnavailable:
    'A write to a shared backend (the PostgreSQL database) that cannot be reached or does not answer in time; its one-line message names the backend, password removed. Answered as backend_unavailable (503) with that message.',
  S3StoreError:
    "A failed request to the S3 blob store, in one line naming the bucket, the endpoint and S3's error code; its code is ENOENT for a missing blob, as the filesystem store's errors are. Handled where the blob store's errors are; one that reaches a request other than for a missing blob is answered backend_unavailable (503).",
  S3DeadlineExceeded:
    'An S3 request (its retries included) with no answer within LARDER_S3_DEADLINE, so a hung S3 cannot hold requests for minutes. Becomes the cause of an S3StoreError with code DeadlineExceeded, answered backend_unavailable (503) naming the blob store and the limit.',
  ContentLimitError:
    "An upstream page or JSON document that breaks one of larder's limits on untrusted content (attributes per tag, links per page, JSON nesting…), its message naming the limit. Thrown by the streaming parsers; the upstream fetcher wraps it as an UpstreamError, answered upstream_invalid (502) naming the upstream URL, or a stale cached copy is served.",
  DependencySyntaxError:
    'A PEP 508 requirement that does not parse. Never leaves the parser, which returns its reason; an upload answers it as invalid_metadata (400).',
} as const;
