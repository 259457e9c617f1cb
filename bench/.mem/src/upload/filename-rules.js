/**
 * The checks on a distribution's filename (Warehouse `forklift/legacy.py` steps 12, 21 and 22), with
 * larder's decisions: legacy and PEP 625 sdist names and `.zip` sdists are accepted (docs/uploads.md), and any
 * syntactically valid wheel tag is accepted (a private index builds for platforms PyPI does not list,
 * e.g. `linux_x86_64`).
 */
import { pep440String } from '../model/versions.js';
import { LarderError } from '../base/errors.js';
import { filenameProjectPart, normalizeName } from '../model/names.js';
import { pyRepr } from '../model/py-repr.js';
const PEP_527 = 'See https://www.python.org/dev/peps/pep-0527';
export const EXTENSIONS_BY_FILETYPE = {
    sdist: ['.tar.gz', '.zip'],
    bdist_wheel: ['.whl'],
};
const invalid = (code, message) => new LarderError(code, message);
/** Step 12: characters of the name. */
export function checkFilenameCharacters(filename) {
    if (/[\x00-\x1f\x7f]/.test(filename)) {
        throw invalid('invalid_filename', 'Cannot upload a file with non-printable characters (ordinals 0-31) or the DEL character (ordinal 127) in the name.');
    }
    if (/[/\\]/.test(filename)) {
        throw invalid('invalid_filename', "Cannot upload a file with '/' or '\\' in the name.");
    }
}
/**
 * Step 12: the extension must be one larder stores, and one that fits the filetype. Returns it. As in
 * Warehouse the extension is found case-insensitively and then compared exactly, so `.WHL` is refused
 * as invalid for its filetype.
 */
export function checkExtension(filename, filetype) {
    const ext = /^.+?(\.(?:tar\.gz|zip|whl))$/is.exec(filename)?.[1];
    if (ext === undefined) {
        throw invalid('invalid_extension', `Invalid file extension: Use .tar.gz, .whl or .zip extension. ${PEP_527} and https://peps.python.org/pep-0715/ for more information`);
    }
    if (!EXTENSIONS_BY_FILETYPE[filetype].includes(ext)) {
        throw invalid('invalid_extension', `Invalid file extension: Extension ${ext} is invalid for filetype ${filetype}. ${PEP_527} for more information.`);
    }
    return ext;
}
function versionMismatch(formVersion, fileVersion) {
    const expected = pep440String(formVersion) ?? formVersion;
    const given = pep440String(fileVersion) ?? fileVersion;
    return invalid('filename_version_mismatch', `Version in filename should be ${pyRepr(expected)} not ${pyRepr(given)}.`);
}
const sameVersion = (a, b) => {
    const na = pep440String(a);
    return na !== null && na === pep440String(b);
};
/**
 * Step 21, with larder's wider sdist rule: `<name>-<version><ext>` where the name part normalizes to the project
 * (PEP 625 `foo_bar-1.0.tar.gz` and legacy `foo-bar-1.0.tar.gz`, `Foo.Bar-1.0.zip` alike) and the
 * version part is the form's version once both are normalized.
 */
export function checkSdistFilename(filename, name, version) {
    const ext = EXTENSIONS_BY_FILETYPE.sdist.find((e) => filename.endsWith(e));
    const stem = ext ? filename.slice(0, -ext.length) : '';
    if (!ext || stem.indexOf('-') <= 0) {
        throw invalid('invalid_sdist_filename', `Invalid source distribution filename: ${filename}`);
    }
    const project = normalizeName(name);
    let split = -1;
    for (let i = stem.indexOf('-'); i > 0; i = stem.indexOf('-', i + 1)) {
        if (normalizeName(stem.slice(0, i)) === project) {
            split = i;
            break;
        }
    }
    if (split === -1) {
        const expected = `${filenameProjectPart(name)}-${pep440String(version) ?? version}${ext}`;
        throw invalid('invalid_sdist_filename', `Filename ${pyRepr(filename)} is invalid, should be ${pyRepr(expected)}.`);
    }
    const fileVersion = stem.slice(split + 1);
    if (!sameVersion(fileVersion, version))
        throw versionMismatch(version, fileVersion);
}
const TAG = /^[A-Za-z0-9_]+$/;
/**
 * Step 22: a well-formed wheel filename (packaging's `parse_wheel_filename` rules) whose name part is
 * exactly the normalized project name with `_`, and whose version is the form's version.
 */
export function checkWheelFilename(filename, name, version) {
    const quoted = pyRepr(filename);
    const stem = filename.slice(0, -'.whl'.length);
    const parts = stem.split('-');
    if (parts.length !== 5 && parts.length !== 6) {
        throw invalid('invalid_wheel_filename', `Invalid wheel filename (wrong number of parts): ${quoted}`);
    }
    const namePart = parts[0];
    if (namePart.includes('__') || !/^[A-Za-z0-9_.]*$/.test(namePart)) {
        throw invalid('invalid_wheel_filename', `Invalid project name: ${quoted}`);
    }
    const fileVersion = parts[1];
    if (pep440String(fileVersion) === null) {
        throw invalid('invalid_wheel_filename', `Invalid wheel filename (invalid version): ${quoted}`);
    }
    if (parts.length === 6 && !/^\d/.test(parts[2])) {
        throw invalid('invalid_wheel_filename', `Invalid build number: ${parts[2]} in ${quoted}`);
    }
    const [pyTags, abiTags, platformTags] = parts.slice(-3).map((t) => t.split('.'));
    for (const tag of [...pyTags, ...abiTags]) {
        if (!TAG.test(tag)) {
            throw invalid('invalid_wheel_filename', `Invalid wheel filename (invalid tag ${pyRepr(tag)}): ${quoted}`);
        }
    }
    for (const tag of platformTags) {
        if (!TAG.test(tag)) {
            throw invalid('invalid_wheel_filename', `Binary wheel ${quoted} has an unsupported platform tag ${pyRepr(tag)}.`);
        }
    }
    const expectedPrefix = filenameProjectPart(name);
    if (normalizeName(namePart) !== normalizeName(name)) {
        throw invalid('invalid_wheel_filename', `Start filename for ${pyRepr(name)} with ${pyRepr(expectedPrefix)}.`);
    }
    if (namePart !== expectedPrefix) {
        throw invalid('invalid_wheel_filename', `Filename ${quoted} should contain the normalized project name ${pyRepr(expectedPrefix)}, not ${pyRepr(namePart)}.`);
    }
    if (!sameVersion(fileVersion, version))
        throw versionMismatch(version, fileVersion);
}
