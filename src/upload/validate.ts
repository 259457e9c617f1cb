/**
 * The checks of a legacy upload that need no look inside the archive, in Warehouse's order
 * (Warehouse's `forklift/legacy.py`): action, protocol, form fields, metadata (metadata-rules.ts), file presence,
 * filename, content type, digests, filename against name and version. The first failure wins.
 */
import { LarderError } from '../base/errors.js';
import type { CodeWithStatus } from '../base/error-catalogue.js';
import { isValidProjectName, MAX_NAME_LENGTH, normalizeName } from '../model/names.js';
import { checkFilenameSegment } from '../model/client-names.js';
import { checkExtension, checkFilenameCharacters, checkSdistFilename, checkWheelFilename } from './filename-rules.js';
import { pep440String } from '../model/versions.js';
import { parseUploadForm, toReleaseMetadata, type UploadForm } from './form-fields.js';
import { checkMetadataFields } from './metadata-rules.js';
import { pyRepr } from '../model/py-repr.js';
import type { FileType, RawUpload, ReceivedFile, ValidatedUpload } from './types.js';

export const METADATA_VERSIONS = ['1.0', '1.1', '1.2', '2.1', '2.2', '2.3', '2.4', '2.5'] as const;

const CORE_METADATA_HELP = 'See https://packaging.python.org/specifications/core-metadata for more information.';

const bad = (code: CodeWithStatus<400>, message: string) => new LarderError(code, message);

export async function validateUpload(raw: RawUpload): Promise<ValidatedUpload> {
  const form = parseUploadForm(raw.fields);
  const s = form.single;

  checkAction(s[':action']);
  if (s.protocol_version !== undefined && s.protocol_version !== '1') {
    throw bad('unknown_protocol_version', 'Unknown protocol version.');
  }

  const name = checkName(s.name);
  const filetype = checkFiletype(s.filetype);
  const pyversion = checkPyversion(filetype, s.pyversion);
  checkDigestFields(form);

  checkMetadataVersion(s.metadata_version);
  const version = checkVersion(s.version);
  const metadata = toReleaseMetadata(form);
  await checkMetadataFields(form);

  const content = raw.content;
  if (!content) throw bad('missing_file', 'Upload payload does not have a file.');
  const filename = content.filename;
  checkFilenameCharacters(filename);
  checkFilenameSegment(filename);
  checkExtension(filename, filetype);
  // A part without a Content-Type is taken (flit sends none; PyPI reads it as text/plain).
  if (content.contentType !== null && /^image\//i.test(content.contentType)) {
    throw bad('invalid_distribution', 'Invalid distribution file.');
  }
  checkDigestsMatch(form, content);

  if (filetype === 'sdist') checkSdistFilename(filename, name, version);
  else checkWheelFilename(filename, name, version);

  return {
    name,
    project: normalizeName(name),
    version,
    filename,
    filetype,
    pyversion,
    comment: s.comment ?? null,
    metadata,
    requiresPython: metadata.requires_python,
    content,
    signature: raw.signature ?? null,
  };
}

function checkAction(action: string | undefined): void {
  if (action === 'file_upload') return;
  if (action === 'submit' || action === 'submit_pkg_info') {
    throw new LarderError('action_gone', 'Project pre-registration is no longer required or supported, upload your files instead.');
  }
  if (action === 'doc_upload') {
    throw new LarderError('action_gone', 'Uploading documentation is no longer supported, we recommend using https://readthedocs.org/.');
  }
  if (action === undefined) {
    throw bad('unknown_action', "Missing ':action'. Use ':action=file_upload' to upload a file.");
  }
  throw bad('unknown_action', `Unknown action ${pyRepr(action, 60)}. Use ':action=file_upload' to upload a file.`);
}

function checkName(name: string | undefined): string {
  if (name === undefined) {
    throw bad('invalid_name', `'' is an invalid value for Name. Error: This field is required. ${CORE_METADATA_HELP}`);
  }
  if (!isValidProjectName(name)) {
    throw bad(
      'invalid_name',
      `${pyRepr(name, 60)} is an invalid value for Name. Error: Start and end with a letter or numeral containing ` +
        `only ASCII numeric and '.', '_' and '-'. ${CORE_METADATA_HELP}`,
    );
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw bad('invalid_name', `${pyRepr(name, 60)} is an invalid value for Name. Error: Use at most ${MAX_NAME_LENGTH} characters. ${CORE_METADATA_HELP}`);
  }
  return name;
}

function checkFiletype(filetype: string | undefined): FileType {
  if (filetype === undefined) throw bad('invalid_filetype', 'Invalid value for filetype. Error: This field is required.');
  if (filetype !== 'sdist' && filetype !== 'bdist_wheel') {
    throw bad('invalid_filetype', 'Invalid value for filetype. Error: Use a known file type.');
  }
  return filetype;
}

function checkPyversion(filetype: FileType, pyversion: string | undefined): string {
  if (filetype === 'sdist') {
    if (pyversion !== undefined && pyversion !== 'source') {
      throw bad('invalid_pyversion', "Invalid value for pyversion. Error: Use 'source' as Python version for an sdist.");
    }
    return 'source';
  }
  if (pyversion === undefined) {
    throw bad('invalid_pyversion', 'Invalid value for pyversion. Error: Python version is required for binary distribution uploads.');
  }
  return pyversion;
}

const HEX_256 = /^[0-9a-f]{64}$/i;
const MD5_HEX = /^[0-9a-f]{32}$/i;
const MD5_BASE64URL = /^[A-Za-z0-9_-]{22}$/;

function checkDigestFields(form: UploadForm): void {
  const { md5_digest: md5, sha256_digest: sha256, blake2_256_digest: blake2 } = form.single;
  if (md5 === undefined && sha256 === undefined && blake2 === undefined) {
    throw bad('missing_digest', 'Error: Include at least one message digest.');
  }
  if (blake2 !== undefined && !HEX_256.test(blake2)) {
    throw bad('invalid_digest', 'Invalid value for blake2_256_digest. Error: Use a valid, hex-encoded, BLAKE2 message digest.');
  }
  if (md5 !== undefined && !MD5_HEX.test(md5) && !MD5_BASE64URL.test(md5)) {
    throw bad('invalid_digest', 'Invalid value for md5_digest. Error: Use a valid, hex-encoded or unpadded URL-safe base64-encoded, MD5 message digest.');
  }
  if (sha256 !== undefined && !HEX_256.test(sha256)) {
    throw bad('invalid_digest', 'Invalid value for sha256_digest. Error: Use a valid, hex-encoded, SHA256 message digest.');
  }
}

function checkDigestsMatch(form: UploadForm, content: ReceivedFile): void {
  const { md5_digest: md5, sha256_digest: sha256, blake2_256_digest: blake2 } = form.single;
  const md5Matches =
    md5 === undefined || (MD5_HEX.test(md5) ? md5.toLowerCase() === content.md5 : md5 === Buffer.from(content.md5, 'hex').toString('base64url'));
  const ok =
    md5Matches && (sha256 === undefined || sha256.toLowerCase() === content.sha256) && (blake2 === undefined || blake2.toLowerCase() === content.blake2b_256);
  if (!ok) {
    throw bad('digest_mismatch', 'The digest supplied does not match a digest calculated from the uploaded file.');
  }
}

function checkMetadataVersion(metadataVersion: string | undefined): void {
  if (metadataVersion === undefined) {
    throw bad('invalid_metadata_version', `None is not a valid metadata version. ${CORE_METADATA_HELP}`);
  }
  if (!(METADATA_VERSIONS as readonly string[]).includes(metadataVersion)) {
    throw bad('invalid_metadata_version', `${pyRepr(metadataVersion, 60)} is not a valid metadata version. ${CORE_METADATA_HELP}`);
  }
}

/** Any valid PEP 440 version, local versions included (docs/uploads.md). */
function checkVersion(version: string | undefined): string {
  if (version === undefined) throw bad('invalid_version', `'version' is a required field. ${CORE_METADATA_HELP}`);
  if (pep440String(version) === null) {
    throw bad('invalid_version', `${pyRepr(version, 60)} is invalid for 'version'. ${CORE_METADATA_HELP}`);
  }
  return version;
}
