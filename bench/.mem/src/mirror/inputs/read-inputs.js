/** Reads a mirror set's inputs: requirements files (expanded later) and lock files of any supported kind. */
import { basename } from 'node:path';
import { InputError } from '../requirement.js';
import { readPdmLock } from './pdm-lock.js';
import { readPoetryLock } from './poetry-lock.js';
import { readPylock } from './pylock.js';
import { readRequirementsFile } from './requirements-file.js';
import { readUvLock } from './uv-lock.js';
const READERS = {
    pylock: readPylock,
    poetry: readPoetryLock,
    uv: readUvLock,
    pdm: readPdmLock,
};
/** Which lock format a file is, by its name as the tools write it. */
export function lockKind(path) {
    const name = basename(path);
    if (/^pylock(\.[^.]+)?\.toml$/.test(name))
        return 'pylock';
    if (name.endsWith('poetry.lock'))
        return 'poetry';
    if (name.endsWith('uv.lock'))
        return 'uv';
    if (name.endsWith('pdm.lock'))
        return 'pdm';
    throw new InputError(`cannot tell which lock format ${path} is: name it pylock.toml, pylock.NAME.toml, poetry.lock, uv.lock or pdm.lock`);
}
export function readInputs(requirementFiles, lockFiles) {
    const inputs = { requirements: [], constraints: [], locked: [], skipped: [] };
    for (const file of requirementFiles)
        readRequirementsFile(file, inputs);
    for (const file of lockFiles)
        READERS[lockKind(file)](file, inputs);
    return inputs;
}
