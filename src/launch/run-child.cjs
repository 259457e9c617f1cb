'use strict';
/**
 * Runs a command as this process's stand-in: same standard streams, SIGINT, SIGTERM and SIGHUP passed on, and
 * this process ends as the command did (its exit code, or the same signal).
 */
const { spawn } = require('child_process');

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Passes SIGINT, SIGTERM and SIGHUP that reach this process on to `child` (telling `heard` too); returns the undo. */
function forwardSignals(child, heard) {
  const pass = (signal) => {
    if (heard) heard(signal);
    child.kill(signal);
  };
  for (const signal of SIGNALS) process.on(signal, pass);
  return () => {
    for (const signal of SIGNALS) process.removeListener(signal, pass);
  };
}

function runChild(command, args, env) {
  const child = spawn(command, args, { stdio: 'inherit', env });
  const stopForwarding = forwardSignals(child);
  child.on('error', (err) => {
    process.stderr.write(`larder: could not run ${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    stopForwarding();
    if (signal) process.kill(process.pid, signal);
    else process.exit(code);
  });
}

module.exports = { forwardSignals, runChild };
