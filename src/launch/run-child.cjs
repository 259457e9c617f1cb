'use strict';
/**
 * Runs a command as this process's stand-in: same standard streams, SIGINT, SIGTERM and SIGHUP passed on, and
 * this process ends as the command did (its exit code, or the same signal).
 */
const { spawn } = require('child_process');

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runChild(command, args, env) {
  const child = spawn(command, args, { stdio: 'inherit', env });
  const pass = (signal) => child.kill(signal);
  for (const signal of SIGNALS) process.on(signal, pass);
  child.on('error', (err) => {
    process.stderr.write(`larder: could not run ${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    for (const s of SIGNALS) process.removeListener(s, pass);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code);
  });
}

module.exports = { runChild };
