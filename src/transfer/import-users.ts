/**
 * What `larder import` does with the users and API tokens an archive holds. An archive is not trusted with
 * accounts: without `--include-users` none is imported; with it, each user is judged against this data
 * directory before anything is written, and the judgement is listed:
 *
 * - new here: imported; an administrator in the archive is imported as an ordinary user unless
 *   `--grant-admins` is given as well;
 * - here as the same account (the same password hash, which only a copy of this account's record holds):
 *   kept as it is here, its tokens imported;
 * - here as another account (another password hash): not merged. The local user is kept and none of the
 *   archive's tokens for that name is imported, so an archive's `alice` never signs in as this `alice`.
 *
 * A token is imported only for a user imported now or found to be the same account, and never over a token
 * hash this directory has already.
 */
import type { TokenRecord, UserRecord } from '../store/records.js';

/** What the operator allowed on the command line. */
export interface UserTrust {
  /** `--include-users`: users and their tokens are imported at all. */
  users: boolean;
  /** `--grant-admins`: the archive's administrators are administrators here too. */
  admins: boolean;
}

export const NO_USERS: UserTrust = { users: false, admins: false };

export type UserVerdict =
  /** Not here: `record` is what is written (its administrator flag cleared unless granted). */
  { kind: 'new'; record: UserRecord } | { kind: 'same' } | { kind: 'other' };

export function judgeUser(archived: UserRecord, local: UserRecord | undefined, trust: UserTrust): UserVerdict {
  if (!local) return { kind: 'new', record: archived.admin && !trust.admins ? { ...archived, admin: false } : archived };
  return local.passwordHash === archived.passwordHash ? { kind: 'same' } : { kind: 'other' };
}

/** Does a token of a user with this verdict get imported? (Never of a user the archive lacks.) */
export const takesTokens = (verdict: UserVerdict | undefined): boolean => verdict !== undefined && verdict.kind !== 'other';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The lines `larder import` prints about users before anything is written: one line when they are not
 * imported, otherwise one line per user saying what happens to it and its tokens.
 */
export function describeUsers(
  users: Iterable<UserRecord>,
  tokens: Iterable<TokenRecord>,
  localUser: (name: string) => UserRecord | undefined,
  trust: UserTrust,
): string[] {
  const tokensOf = new Map<string, number>();
  let tokenCount = 0;
  for (const token of tokens) {
    tokenCount++;
    tokensOf.set(token.user, (tokensOf.get(token.user) ?? 0) + 1);
  }
  const archived = [...users];
  if (archived.length === 0 && tokenCount === 0) return [];
  const admins = archived.filter((u) => u.admin).length;
  const holds = `the archive holds ${plural(archived.length, 'user')}${admins ? ` (${admins} of them ${admins === 1 ? 'an administrator' : 'administrators'})` : ''} and ${plural(tokenCount, 'token')}`;
  if (!trust.users) return [`${holds}; not imported (use --include-users to import them, and --grant-admins to keep administrators administrators)`];

  const lines = [`${holds}; with --include-users${trust.admins ? ' and --grant-admins' : ''}:`];
  for (const user of archived) {
    const verdict = judgeUser(user, localUser(user.name), trust);
    const own = plural(tokensOf.get(user.name) ?? 0, 'token');
    const was = user.admin ? ', an administrator in the archive,' : '';
    switch (verdict.kind) {
      case 'new':
        lines.push(
          `  user ${user.name}${was} is new here: imported${
            user.admin
              ? verdict.record.admin
                ? ' as an administrator (--grant-admins)'
                : ' as an ordinary user (--grant-admins would keep it an administrator)'
              : ''
          }, with its ${own}`,
        );
        break;
      case 'same':
        lines.push(`  user ${user.name}${was} is the same account here (same password hash): kept as it is here, with its ${own}`);
        break;
      case 'other':
        lines.push(
          `  user ${user.name}${was} exists here as another account (another password hash): not merged; the local ${user.name} is kept and none of the archive's tokens for ${user.name} (${own}) is imported`,
        );
        break;
    }
  }
  return lines;
}
