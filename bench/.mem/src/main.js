#!/usr/bin/env node
/** CLI entry: runs the command line with this process's arguments, standard streams and environment. */
import { runCli } from './cli/run.js';
async function readStdin() {
    const chunks = [];
    for await (const chunk of process.stdin)
        chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
}
const io = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readStdin,
    env: process.env,
};
runCli(process.argv.slice(2), io).then((code) => {
    if (code >= 0)
        process.exitCode = code;
});
