/** The JSON API's `packagetype` and `python_version` of a file, read from its filename. */
import { parseWheelFilename } from './filenames.js';
export function packageTypeOf(filename) {
    const lower = filename.toLowerCase();
    if (lower.endsWith('.whl'))
        return 'bdist_wheel';
    if (lower.endsWith('.egg'))
        return 'bdist_egg';
    if (lower.endsWith('.exe'))
        return 'bdist_wininst';
    if (lower.endsWith('.msi'))
        return 'bdist_msi';
    return 'sdist';
}
/** A wheel's python tag (`py2.py3`), an egg's Python version (`2.7`), `source` for sdists. */
export function pythonVersionOf(filename) {
    const wheel = parseWheelFilename(filename);
    if (wheel)
        return wheel.pythonTags.join('.');
    const type = packageTypeOf(filename);
    if (type === 'sdist')
        return 'source';
    const egg = /-py(\d+(?:\.\d+)*)(?:-|\.egg$)/i.exec(filename);
    return egg ? egg[1] : 'any';
}
