/**
 * The `larder` command line as a function of its arguments and its I/O: `larder serve`, `larder user …`,
 * `larder token …`, `larder project …`. Returns the exit code, or -1 while `serve` runs.
 */
import { CONFIG_FLAGS_HELP, parseCommand, UsageError } from './args.js';
import type { Io } from './command.js';
import { COMMANDS, runStoreCommand } from './commands.js';
import { describeConfig } from '../config/load.js';
import { ConfigError } from '../config/schema.js';
import { LarderError } from '../base/errors.js';

const SERVE_USAGE = `usage: larder serve [settings]\n\nRun the index server.\n\nSettings (flags override environment variables, which override config/defaults.json):\n${CONFIG_FLAGS_HELP}\n  LARDER_CONFIG        a JSON file of settings, read after the defaults`;

function mainHelp(): string {
  const lines = ['usage: larder COMMAND [ARGS] [--help]', '', 'Commands:', '  serve                      run the index server'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(26)} ${c.summary}`);
  return lines.join('\n');
}

/** Resolves true once the server listens (it runs until a signal), false when only help was asked for. */
async function serve(argv: string[], io: Io): Promise<boolean> {
  const { values, positionals, config } = parseCommand(argv, {}, io.env);
  if (values.help) {
    io.out(SERVE_USAGE);
    return false;
  }
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'; usage: larder serve [settings]`);
  // Loaded here so that the store commands do not pay for the HTTP stack.
  const { createLarder } = await import('../app.js');
  const larder = await createLarder(config());
  const url = await larder.listen();
  larder.logger.info({ config: describeConfig(larder.config) }, 'configuration');
  larder.logger.info(`larder listening on ${url} (simple index: ${url}/simple/)`);
  let stopping = false;
  const stop = (signal: string) => {
    // The same signal often comes twice: from the terminal (or systemd) to every process, and passed on by a
    // parent (npm, tsx, src/launch/). A repeat must not cut the graceful shutdown short.
    if (stopping) return;
    stopping = true;
    larder.logger.info(`${signal} received, shutting down`);
    larder.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGHUP', () => {
    try {
      larder.reloadPolicy(config());
      larder.logger.info('SIGHUP received: deny and allow lists and the release cooldown reloaded');
    } catch (err) {
      larder.logger.error({ err: (err as Error).message }, 'SIGHUP received: the configuration does not load; the policy is unchanged');
    }
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return true;
}

export interface CliIo extends Io {
  /** Writes one line to standard error. */
  err: (line: string) => void;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(mainHelp());
    return first ? 0 : 2;
  }
  try {
    if (first === 'serve') return (await serve(argv.slice(1), io)) ? -1 : 0;
    const twoWords = `${first} ${second ?? ''}`;
    const name = COMMANDS[twoWords] ? twoWords : first;
    const command = COMMANDS[name];
    if (!command) {
      const group = Object.keys(COMMANDS).filter((n) => n.startsWith(`${first} `));
      if (group.length && (!second || second === '--help')) {
        io.out(group.map((n) => `  ${COMMANDS[n]!.usage}`).join('\n'));
        return second ? 0 : 2;
      }
      throw new UsageError(`unknown command '${twoWords.trim()}'; run larder --help`);
    }
    await runStoreCommand(command)(argv.slice(name.split(' ').length), io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof LarderError) {
      io.err(`larder: ${err.message}`);
      return err instanceof UsageError ? 2 : 1;
    }
    io.err(`larder: ${(err as Error).message ?? String(err)}`);
    return 1;
  }
}
