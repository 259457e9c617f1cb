const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes text and attribute values the way Jinja's autoescape does. */
export function escapeHtml(text) {
    return NEEDS_ESCAPE.test(text) ? text.replace(/[&<>"']/g, (char) => ENTITIES[char]) : text;
}
const NEEDS_ESCAPE = /[&<>"']/;
