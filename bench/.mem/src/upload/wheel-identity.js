/**
 * A wheel's `*.dist-info/METADATA` must name the project and the version its filename (and so the form,
 * which validate.ts ties to the filename) names: installers trust METADATA, indexes trust the filename.
 */
import { LarderError } from '../base/errors.js';
import { normalizeName } from '../model/names.js';
import { pyRepr } from '../model/py-repr.js';
import { pep440String } from '../model/versions.js';
const refuse = (code, message) => new LarderError(code, message);
/** The first value of each wanted header field (lowercase names) of an RFC 822-style core metadata file. */
function headerFields(text, wanted) {
    const found = new Map();
    for (const line of text.replace(/^\ufeff/, '').split(/\r\n?|\n/)) {
        if (line === '')
            break;
        if (/^[ \t]/.test(line))
            continue; // a folded continuation of the previous field
        const colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const field = line.slice(0, colon).trim().toLowerCase();
        if (wanted.includes(field) && !found.has(field))
            found.set(field, line.slice(colon + 1).trim());
    }
    return found;
}
export function checkWheelIdentity(metadata, upload) {
    const fields = headerFields(metadata.toString('utf8'), ['name', 'version']);
    const name = fields.get('name');
    const version = fields.get('version');
    if (!name)
        throw refuse('invalid_metadata', "The wheel's METADATA has no Name field.");
    if (!version)
        throw refuse('invalid_metadata', "The wheel's METADATA has no Version field.");
    if (normalizeName(name) !== upload.project) {
        throw refuse('metadata_mismatch', `Name ${pyRepr(name, 60)} in the wheel's METADATA does not match the project ${pyRepr(upload.project)} of the filename and the form.`);
    }
    const normalized = pep440String(version);
    if (normalized === null || normalized !== pep440String(upload.version)) {
        throw refuse('metadata_mismatch', `Version ${pyRepr(version, 60)} in the wheel's METADATA does not match the version ${pyRepr(upload.version)} of the filename and the form.`);
    }
}
