/** The larder commands other than `serve`: users, tokens and project administration on a data directory. */
import { isExpired, newToken } from '../auth/tokens.js';
import { EXPIRY_HELP, parseExpiry } from '../auth/token-expiry.js';
import { newPasswordProblem, userNameProblem } from '../auth/user-rules.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { normalizeName } from '../model/names.js';
import { checkProjectName } from '../model/client-names.js';
import { CLI_IDENTITY, ProjectAdmin } from '../upload/project-admin.js';
import { systemClock } from '../base/clock.js';
import type { IndexStore } from '../store/index-store.js';
import type { TokenRecord } from '../store/records.js';
import { openStorage } from '../store/local/open-storage.js';
import { openBackends } from '../store/open-backends.js';
import { cacheStats, collectGarbage, purgeCache } from '../cache/cache-maintenance.js';
import { parseDuration } from '../config/schema.js';
import { formatBytes } from '../base/units.js';
import { parseCommand, UsageError } from './args.js';
import { commandHelp } from './help.js';
import { TRANSFER_COMMANDS } from './transfer-commands.js';
import { POLICY_COMMANDS } from './policy-commands.js';
import { ADVISORY_COMMANDS } from './advisory-commands.js';
import { MIRROR_COMMANDS } from './mirror-commands.js';
import { MIGRATE_COMMANDS } from './migrate-command.js';
import { PUBLISHER_COMMANDS } from './publisher-commands.js';
import { AUDIT_COMMANDS } from './audit-commands.js';
import type { Command, Handler, Io } from './command.js';
import { table } from './table.js';

async function readPassword(io: Io, fromStdin: boolean): Promise<string> {
  if (!fromStdin) throw new UsageError('give the password on standard input with --password-stdin');
  const password = (await io.readStdin()).replace(/\r?\n$/, '');
  const problem = newPasswordProblem(password);
  if (problem) throw new UsageError(problem);
  return password;
}

const admin = (meta: IndexStore) => new ProjectAdmin(meta);

export const COMMANDS: Record<string, Command> = {
  'user add': {
    usage: 'larder user add NAME [--password-stdin] [--admin]',
    summary: 'create a user (password read from standard input)',
    options: {
      'password-stdin': { type: 'boolean', help: 'read the password (8 characters or more) from standard input' },
      admin: { type: 'boolean', help: 'make the user an administrator' },
    },
    minArgs: 1,
    maxArgs: 1,
    async run([name], values, { index: meta }, io) {
      const problem = userNameProblem(name!);
      if (problem) throw new UsageError(problem);
      if (await meta.getUser(name!)) throw new UsageError(`user '${name}' already exists`);
      const password = await readPassword(io, values['password-stdin'] === true);
      const hasher = new PasswordHasher({ threads: 1 });
      const passwordHash = await hasher.hash(password).finally(() => hasher.close());
      await meta.putUser({ name: name!, passwordHash, admin: values.admin === true, createdAt: new Date(systemClock.now()).toISOString() });
      io.out(`created user ${name}${values.admin ? ' (admin)' : ''}`);
    },
  },
  'user list': {
    usage: 'larder user list',
    summary: 'list users',
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, { index: meta }, io) {
      const users = await meta.listUsers();
      if (users.length === 0) return io.out('no users');
      for (const line of table([['NAME', 'ADMIN', 'CREATED'], ...users.map((u) => [u.name, u.admin ? 'yes' : 'no', u.createdAt])])) io.out(line);
    },
  },
  'user remove': {
    usage: 'larder user remove NAME',
    summary: 'remove a user, their tokens and their roles in every project',
    minArgs: 1,
    maxArgs: 1,
    async run([name], _values, { index: meta }, io) {
      if (!(await meta.removeUser(name!))) throw new UsageError(`no user named '${name}'`);
      io.out(`removed user ${name}`);
    },
  },
  'token create': {
    usage: 'larder token create USER [--project P]... [--description D] [--expires DURATION|DATE]',
    summary: 'create an API token (printed once, as the last line)',
    options: {
      project: { type: 'string', multiple: true, value: 'P', help: 'limit the token to project P (repeatable); default: every project the user may upload to' },
      description: { type: 'string', value: 'D', help: 'a note shown by token list' },
      expires: { type: 'string', value: 'WHEN', help: `when the token stops working: ${EXPIRY_HELP}; a date is that day at 00:00 UTC`, default: 'never' },
    },
    minArgs: 1,
    maxArgs: 1,
    async run([user], values, { index: meta }, io) {
      const named = values.project as string[] | undefined;
      named?.forEach(checkProjectName);
      if (!(await meta.getUser(user!))) throw new UsageError(`no user named '${user}'`);
      const now = systemClock.now();
      const expiry = parseExpiry((values.expires as string | undefined) ?? 'never', now);
      if (!expiry.ok) throw new UsageError(`--expires: ${expiry.problem}`);
      const projects = named?.map(normalizeName) ?? null;
      const description = (values.description as string | undefined) ?? null;
      const { token, record } = newToken(user!, { projects, description, expiresAt: expiry.expiresAt }, new Date(now));
      await meta.putToken(record);
      const scope = projects ? ` limited to ${projects.join(', ')}` : '';
      const until = record.expiresAt ? `, expires ${record.expiresAt}` : ', never expires';
      io.out(`created token ${record.id} for ${user}${scope}${until}; use it with user name __token__:`);
      io.out(token);
    },
  },
  'token list': {
    usage: 'larder token list [USER]',
    summary: 'list tokens (ids only; tokens are never shown again)',
    minArgs: 0,
    maxArgs: 1,
    async run([user], _values, { index: meta }, io) {
      const tokens = await meta.listTokens(user);
      if (tokens.length === 0) return io.out('no tokens');
      const now = systemClock.now();
      const expires = (t: TokenRecord) => (t.expiresAt ? `${t.expiresAt}${isExpired(t, now) ? ' (expired)' : ''}` : 'never');
      const rows = tokens.map((t) => [t.id, t.user, t.projects?.join(',') ?? '*', t.createdAt, expires(t), t.description ?? '']);
      for (const line of table([['ID', 'USER', 'PROJECTS', 'CREATED', 'EXPIRES', 'DESCRIPTION'], ...rows])) io.out(line);
    },
  },
  'token revoke': {
    usage: 'larder token revoke ID',
    summary: 'revoke a token by its id',
    minArgs: 1,
    maxArgs: 1,
    async run([id], _values, { index: meta }, io) {
      if (!(await meta.removeToken(id!))) throw new UsageError(`no token with id '${id}'`);
      io.out(`revoked token ${id}`);
    },
  },
  'project yank': {
    usage: 'larder project yank PROJECT VERSION [--reason R]',
    summary: 'yank a release',
    options: { reason: { type: 'string', value: 'R', help: 'why, shown to installers (pip prints it)' } },
    minArgs: 2,
    maxArgs: 2,
    async run([project, version], values, { index: meta }, io) {
      await admin(meta).setYanked(project!, version!, true, (values.reason as string | undefined) ?? null, CLI_IDENTITY);
      io.out(`yanked ${project} ${version}`);
    },
  },
  'project unyank': {
    usage: 'larder project unyank PROJECT VERSION',
    summary: 'unyank a release',
    minArgs: 2,
    maxArgs: 2,
    async run([project, version], _values, { index: meta }, io) {
      await admin(meta).setYanked(project!, version!, false, null, CLI_IDENTITY);
      io.out(`unyanked ${project} ${version}`);
    },
  },
  'project remove': {
    usage: 'larder project remove PROJECT [VERSION [FILENAME]]',
    summary: 'remove a project, a release or one file (file names stay reserved)',
    minArgs: 1,
    maxArgs: 3,
    async run([project, version, filename], _values, { index: meta, publishers }, io) {
      const removed = await new ProjectAdmin(meta, publishers).remove(project!, version ?? null, filename ?? null, CLI_IDENTITY);
      io.out(`removed ${[project, version, filename].filter(Boolean).join(' ')} (${removed.length} file${removed.length === 1 ? '' : 's'})`);
    },
  },
  'project add-maintainer': {
    usage: 'larder project add-maintainer PROJECT USER',
    summary: 'let USER upload to PROJECT',
    minArgs: 2,
    maxArgs: 2,
    async run([project, user], _values, { index: meta }, io) {
      await admin(meta).addMaintainer(project!, user!, CLI_IDENTITY);
      io.out(`${user} now maintains ${project}`);
    },
  },
  'project status': {
    usage: 'larder project status PROJECT active|archived|quarantined|deprecated [--reason TEXT]',
    summary: 'set the PEP 792 status of a private project (archived takes no uploads, quarantined serves no files)',
    options: { reason: { type: 'string', value: 'TEXT', help: 'why, shown on its pages (one line, at most 500 characters)' } },
    minArgs: 2,
    maxArgs: 2,
    async run([project, status], values, { index: meta }, io) {
      const reason = (values.reason as string | undefined) ?? null;
      const set = await admin(meta).setStatus(project!, status!, reason, CLI_IDENTITY);
      io.out(`${set.project} is now ${status}${reason ? ` (${reason.trim()})` : ''}`);
    },
  },
  'cache stats': {
    usage: 'larder cache stats',
    summary: 'sizes of the private files, the cached upstream files and the blob store',
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, storage, io, config) {
      const s = await cacheStats(storage);
      const limit = config.cacheMaxSize === null ? 'unlimited' : formatBytes(config.cacheMaxSize);
      io.out(`private files   ${s.privateFiles} (${formatBytes(s.privateBytes)})`);
      io.out(`cached files    ${s.cachedFiles} (${formatBytes(s.cachedBytes)}; limit ${limit})`);
      io.out(`cached pages    ${s.cachedPages}`);
      io.out(`blob store      ${s.blobs} blobs (${formatBytes(s.blobBytes)})`);
    },
  },
  'cache purge': {
    usage: 'larder cache purge [PROJECT...]',
    summary: 'forget cached upstream data (all, or of the named projects); private data is untouched',
    minArgs: 0,
    maxArgs: Infinity,
    async run(projects, _values, storage, io) {
      projects.forEach(checkProjectName);
      const r = await purgeCache(storage, projects);
      io.out(`purged ${r.pages} cached page${r.pages === 1 ? '' : 's'} and ${r.files} cached file${r.files === 1 ? '' : 's'} (${formatBytes(r.bytes)})`);
    },
  },
  gc: {
    usage: 'larder gc [--min-age DURATION]',
    summary: 'delete orphan blobs and stale temporary files (safe while the server runs)',
    options: { 'min-age': { type: 'string', value: 'DURATION', help: 'keep orphan blobs and temporary files younger than this', default: '1h' } },
    minArgs: 0,
    maxArgs: 0,
    async run(_args, values, storage, io) {
      const minAge = values['min-age'] === undefined ? undefined : parseDuration(values['min-age'], '--min-age');
      const r = await collectGarbage(storage, systemClock, minAge);
      io.out(`removed ${r.blobs} orphan blob${r.blobs === 1 ? '' : 's'} (${formatBytes(r.bytes)}) and ${r.tmp} stale temporary file${r.tmp === 1 ? '' : 's'}`);
    },
  },
  'project allow-name': {
    usage: 'larder project allow-name NAME',
    summary: 'allow a new private project to take a name that exists upstream',
    minArgs: 1,
    maxArgs: 1,
    async run([name], _values, { index: meta }, io) {
      io.out(`allowed ${await admin(meta).allowName(name!, CLI_IDENTITY)}`);
    },
  },
  ...TRANSFER_COMMANDS,
  ...POLICY_COMMANDS,
  ...ADVISORY_COMMANDS,
  ...MIRROR_COMMANDS,
  ...MIGRATE_COMMANDS,
  ...PUBLISHER_COMMANDS,
  ...AUDIT_COMMANDS,
};

export const runStoreCommand =
  (name: string, command: Command): Handler =>
  async (argv, io) => {
    const { values, positionals, config } = parseCommand(name, argv, command.options ?? {}, io.env);
    if (values.help) return io.out(commandHelp(command));
    if (positionals.length < command.minArgs || positionals.length > command.maxArgs) {
      throw new UsageError(`wrong number of arguments; usage: ${command.usage}`);
    }
    const settings = config();
    const storage = command.localStorage ? openStorage(settings.data) : await openBackends(settings);
    try {
      await command.run(positionals, values, storage, io, settings);
    } finally {
      await storage.close();
    }
  };
