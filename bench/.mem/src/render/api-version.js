/**
 * The Simple API version larder advertises, in HTML (`pypi:repository-version`) and JSON (`meta.api-version`).
 *
 * "1.4", because every feature up to it is emitted:
 * - 1.1 (PEP 700): `versions`, `size` and `upload-time` in JSON. A project page with a file of unknown size
 *   falls back to API_VERSION_WITHOUT_SIZE instead of inventing a size (see simple-json.ts), in both of
 *   its forms, so that HTML and JSON say the same version for the same page.
 * - 1.2 (PEP 708) was rejected; its keys are never emitted and 1.4 does not require them.
 * - 1.3 (PEP 740): `provenance` / `data-provenance`, passed through from the model unchanged.
 * - 1.4 (PEP 792): project status, emitted on every project page as PyPI does (`active` when the
 *   model has none, which is what an absent status means).
 * Per PEP 833 the HTML form stays at 1.4 for good.
 */
export const API_VERSION = '1.4';
/** For a project page that cannot give every file's `size` (1.1 makes it required in JSON). */
export const API_VERSION_WITHOUT_SIZE = '1.0';
/** The version a project page advertises, the same in HTML and JSON. */
export function pageApiVersion(page) {
    return page.files.every((file) => file.size !== null) ? API_VERSION : API_VERSION_WITHOUT_SIZE;
}
