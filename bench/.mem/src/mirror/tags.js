import { pythonParts } from './target.js';
const LEGACY_MANYLINUX = { manylinux1: [2, 5], manylinux2010: [2, 12], manylinux2014: [2, 17] };
function linuxTag(tag) {
    const legacy = /^(manylinux1|manylinux2010|manylinux2014)_(.+)$/.exec(tag);
    if (legacy)
        return { libc: 'glibc', version: LEGACY_MANYLINUX[legacy[1]], arch: legacy[2] };
    const m = /^(manylinux|musllinux)_(\d+)_(\d+)_(.+)$/.exec(tag);
    if (m)
        return { libc: m[1] === 'manylinux' ? 'glibc' : 'musl', version: [Number(m[2]), Number(m[3])], arch: m[4] };
    const plain = /^linux_(.+)$/.exec(tag);
    return plain ? { libc: 'any', version: [0, 0], arch: plain[1] } : null;
}
const notNewer = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
/** packaging.tags._mac_binary_formats */
function macBinaryFormats(version, arch) {
    const formats = [arch];
    if (arch === 'x86_64') {
        if (!notNewer([10, 4], version))
            return [];
        formats.push('intel', 'fat64', 'fat32');
    }
    else if (arch === 'i386') {
        if (!notNewer([10, 4], version))
            return [];
        formats.push('intel', 'fat32', 'fat');
    }
    if (arch === 'arm64' || arch === 'x86_64')
        formats.push('universal2');
    if (['x86_64', 'i386', 'intel', 'fat', 'fat3', 'fat32', 'fat64'].includes(arch))
        formats.push('universal');
    return formats;
}
/** Every macOS platform tag `packaging.tags.mac_platforms(version, arch)` yields. */
export function macPlatforms(version, arch) {
    const out = [];
    const add = (v, formats) => {
        for (const f of formats)
            out.push(`macosx_${v[0]}_${v[1]}_${f}`);
    };
    if (version[0] === 10)
        for (let minor = version[1]; minor >= 0; minor--)
            add([10, minor], macBinaryFormats([10, minor], arch));
    if (version[0] >= 11) {
        for (let major = version[0]; major > 10; major--)
            add([major, 0], macBinaryFormats([major, 0], arch));
        for (let minor = 16; minor > 3; minor--)
            add([10, minor], arch === 'x86_64' ? macBinaryFormats([10, minor], arch) : ['universal2']);
    }
    return out;
}
/** True when a wheel built for platform tag `wheel` runs on `target` (a platform tag too). */
export function platformCompatible(wheel, target) {
    if (wheel === target)
        return true;
    const t = linuxTag(target);
    if (t) {
        const w = linuxTag(wheel);
        if (!w || w.arch !== t.arch)
            return false;
        if (w.libc === 'any')
            return true;
        return w.libc === t.libc && notNewer(w.version, t.version);
    }
    const mac = /^macosx_(\d+)_(\d+)_(.+)$/.exec(target);
    if (mac) {
        const major = Number(mac[1]);
        // packaging counts macOS 11 and later by major release only.
        const version = major >= 11 ? [major, 0] : [major, Number(mac[2])];
        return macPlatforms(version, mac[3]).includes(wheel);
    }
    return false;
}
/** True when an interpreter tag and ABI tag pair runs on CPython `major.minor` (platform aside). */
export function interpreterCompatible(python, abi, version) {
    const [major, minor] = version;
    const own = `cp${major}${minor}`;
    const cp = /^cp(\d)(\d+)$/.exec(python);
    if (cp) {
        const [pyMajor, pyMinor] = [Number(cp[1]), Number(cp[2])];
        if (python === own && (abi === own || abi === 'abi3' || abi === 'none'))
            return true;
        // abi3 wheels built for an older CPython 3.2+ run on a newer one.
        return abi === 'abi3' && pyMajor === major && major === 3 && pyMinor >= 2 && pyMinor <= minor;
    }
    if (abi !== 'none')
        return false;
    const py = /^py(\d)(\d*)$/.exec(python);
    if (!py)
        return false;
    if (Number(py[1]) !== major)
        return false;
    return py[2] === '' || Number(py[2]) <= minor;
}
/** True when one of the wheel's tags (`py × abi × platform`) is supported by the target. */
export function wheelCompatible(wheel, target) {
    const [major, minor] = pythonParts(target.python);
    for (const platform of wheel.platformTags) {
        // `any` goes only with ABI `none` (packaging lists no `cp311-abi3-any`).
        const isAny = platform === 'any';
        if (!isAny && !platformCompatible(platform, target.platform))
            continue;
        for (const py of wheel.pythonTags) {
            for (const abi of wheel.abiTags) {
                if (isAny && abi !== 'none')
                    continue;
                if (interpreterCompatible(py, abi, [major, minor]))
                    return true;
            }
        }
    }
    return false;
}
