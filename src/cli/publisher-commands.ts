/**
 * `larder publisher …`: a project's trusted publishers (README "Trusted publishing"). `add` prints the new
 * publisher's id; `list` shows id, project, issuer and every claim. A running server sees the changes at
 * its next token exchange (publishers are read from the store for each one).
 */
import { readFile } from 'node:fs/promises';
import { systemClock } from '../base/clock.js';
import { LarderError } from '../base/errors.js';
import { parseClaim, PublisherAdmin } from '../upload/publisher-admin.js';
import { CLI_IDENTITY } from '../upload/project-admin.js';
import type { Storage } from '../store/storage.js';
import { UsageError } from './args.js';
import type { Command, Io } from './command.js';
import { table } from './table.js';

/** The JWK Sets `--jwks` reads are small; a larger file is a mistake. */
const MAX_JWKS_FILE = 256 * 1024;

const operator = (io: Io) => io.env.LARDER_OPERATOR || io.env.SUDO_USER || io.env.USER || io.env.LOGNAME || 'cli';
const adminOf = (storage: Storage) => new PublisherAdmin(storage.index, storage.publishers, systemClock);

/** A LarderError (a refusal meant for a person) as a usage error: the CLI prints it and exits 2. */
async function asUsage<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof LarderError && err.status < 500) throw new UsageError(err.message);
    throw err;
  }
}

async function readJwks(path: string): Promise<unknown> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_JWKS_FILE) throw new UsageError(`${path} is larger than ${MAX_JWKS_FILE / 1024} KiB: not a JWK Set`);
    text = bytes.toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not JSON (a JWK Set is {"keys": [...]})`);
  }
}

export const PUBLISHER_COMMANDS: Record<string, Command> = {
  'publisher add': {
    usage: 'larder publisher add PROJECT --issuer URL --claim KEY=VALUE [--claim KEY=VALUE ...] [--jwks FILE]',
    summary: "trust CI jobs whose OIDC tokens carry these claims to upload to PROJECT (prints the publisher's id)",
    description:
      'Claims match the token exactly, e.g. --claim repository=acme/widgets --claim workflow_ref=acme/widgets/.github/workflows/release.yml@refs/heads/main. ' +
      'Prints only the new id. The issuer must also be listed in LARDER_OIDC_ISSUERS for its tokens to be accepted. --jwks pins the issuer to the keys of a JWK Set file (no fetching).',
    options: {
      issuer: { type: 'string', value: 'URL', help: "the OIDC issuer, as its tokens' iss claim names it" },
      claim: { type: 'string', multiple: true, value: 'KEY=VALUE', help: 'a claim the token must carry with exactly this value (repeatable)' },
      jwks: { type: 'string', value: 'FILE', help: 'a JWK Set ({"keys": [...]}) to verify the issuer\'s tokens with instead of fetching its keys' },
    },
    minArgs: 1,
    maxArgs: 1,
    async run([project], values, storage, io) {
      if (typeof values.issuer !== 'string') throw new UsageError('--issuer URL is required');
      const claimTexts = (values.claim as string[] | undefined) ?? [];
      if (claimTexts.length === 0) throw new UsageError('at least one --claim KEY=VALUE is required');
      const jwks = typeof values.jwks === 'string' ? await readJwks(values.jwks) : null;
      const added = await asUsage(async () => {
        const claims: Record<string, string> = {};
        for (const text of claimTexts) {
          const [key, value] = parseClaim(text);
          if (key in claims) throw new UsageError(`the claim ${key} is given twice`);
          claims[key] = value;
        }
        return adminOf(storage).add(project!, { issuer: values.issuer as string, claims, jwks }, CLI_IDENTITY, operator(io));
      });
      // Only the id, so that scripts can take it (`id=$(larder publisher add …)`).
      io.out(added.id);
    },
  },
  'publisher list': {
    usage: 'larder publisher list [PROJECT]',
    summary: 'list trusted publishers: id, project, issuer and claims',
    minArgs: 0,
    maxArgs: 1,
    async run([project], _values, storage, io) {
      const publishers = await asUsage(() => adminOf(storage).list(project ?? null, CLI_IDENTITY));
      if (!publishers.length) return io.out('no trusted publishers');
      const rows = publishers.map((p) => [
        p.id,
        p.project,
        p.issuer + (p.jwks ? ' (pinned keys)' : ''),
        Object.entries(p.claims)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      ]);
      for (const line of table([['ID', 'PROJECT', 'ISSUER', 'CLAIMS'], ...rows])) io.out(line);
    },
  },
  'publisher remove': {
    usage: 'larder publisher remove PROJECT ID',
    summary: 'stop trusting a publisher (tokens it minted stay valid until they expire)',
    minArgs: 2,
    maxArgs: 2,
    async run([project, id], _values, storage, io) {
      await asUsage(() => adminOf(storage).remove(project!, id!, CLI_IDENTITY));
      io.out(`removed trusted publisher ${id}`);
    },
  },
};
