/**
 * The `larder` command line as a function of its arguments and its I/O: `larder serve`, `larder user …`,
 * `larder token …`, `larder project …`. Returns the exit code, or -1 while `serve` runs.
 */
import { parseCommand, UsageError } from './args.js';
import type { Io } from './command.js';
import { COMMANDS, runStoreCommand } from './commands.js';
import { mainHelp, serveHelp } from './help.js';
import { closest } from './suggest.js';
import { describeConfig } from '../config/load.js';
import { ConfigError } from '../config/schema.js';
import { LarderError } from '../base/errors.js';
import { LARDER_VERSION } from '../base/version.js';

/** Resolves true once the server listens (it runs until a signal), false when only help was asked for. */
async function serve(argv: string[], io: Io): Promise<boolean> {
  const { values, positionals, config } = parseCommand('serve', argv, {}, io.env);
  if (values.help) {
    io.out(serveHelp());
    return false;
  }
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'; usage: larder serve [settings]`);
  const settings = config();
  // Loaded here so that the store commands do not pay for the HTTP stack.
  const [{ createLarder }, { createLogger, logFormatFor }, { startupSummary }] = await Promise.all([
    import('../app.js'),
    import('../logger.js'),
    import('./startup-summary.js'),
  ]);
  const format = logFormatFor(process.stdout);
  const logger = createLogger(settings, process.stdout, { format });
  const larder = await createLarder(settings, { logger });
  const url = await larder.listen();
  // A terminal gets a summary (the whole configuration at debug level); JSON logs get the whole configuration.
  logger[format === 'json' ? 'info' : 'debug']({ config: describeConfig(larder.config) }, 'configuration');
  if (format === 'json') logger.info(`larder listening on ${url} (simple index: ${url}/simple/)`);
  else logger.info(startupSummary(larder.config, url, LARDER_VERSION).join('\n'));
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
    // A terminal that closes sends a hangup with the shutdown: there is nothing left to reload.
    if (stopping) return;
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

/** The command `first second` most likely meant, or null. */
function suggestCommand(first: string, second: string | undefined): string | null {
  const names = ['serve', ...Object.keys(COMMANDS)];
  const words = new Set(names.map((n) => n.split(' ')[0]!));
  const word = words.has(first) ? first : closest(first, words);
  if (!word) return null;
  const rest = names.filter((n) => n.startsWith(`${word} `)).map((n) => n.slice(word.length + 1));
  if (!rest.length) return word === first ? null : word;
  const sub = second === undefined ? null : rest.includes(second) ? second : closest(second, rest);
  if (sub) return `${word} ${sub}`;
  return word === first ? null : word;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.out(mainHelp(COMMANDS));
    return first ? 0 : 2;
  }
  if (first === '--version' || first === '-V') {
    io.out(`larder ${LARDER_VERSION}`);
    return 0;
  }
  try {
    if (first === 'serve') return (await serve(argv.slice(1), io)) ? -1 : 0;
    const twoWords = `${first} ${second ?? ''}`;
    const name = COMMANDS[twoWords] ? twoWords : first;
    const command = COMMANDS[name];
    if (!command) {
      const group = Object.keys(COMMANDS).filter((n) => n.startsWith(`${first} `));
      if (group.length && (!second || second === '--help' || second === '-h')) {
        io.out(group.map((n) => `  ${COMMANDS[n]!.usage}`).join('\n'));
        return second ? 0 : 2;
      }
      if (first.startsWith('-')) {
        const near = closest(first.replace(/^-+/, ''), ['help', 'version']);
        throw new UsageError(`unknown option '${first}'; ${near ? `did you mean '--${near}'?` : 'run larder --help'}`);
      }
      const near = suggestCommand(first, second);
      const typed = group.length || near?.includes(' ') ? twoWords.trim() : first;
      const hint = near ? `did you mean 'larder ${near}'?` : `run larder ${group.length ? `${first} ` : ''}--help`;
      throw new UsageError(`unknown command '${typed}'; ${hint}`);
    }
    await runStoreCommand(name, command)(argv.slice(name.split(' ').length), io);
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
