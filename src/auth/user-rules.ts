/** What a user name and a password must be, for `larder user add` and the web pages alike. */

export const MIN_PASSWORD_LENGTH = 8;
/** Longer passwords are refused rather than hashed (scrypt's cost grows with the input). */
export const MAX_PASSWORD_LENGTH = 1024;
export const USER_NAME_MAX = 64;

const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot be a user name, or null when it can. */
export function userNameProblem(name: string): string | null {
  if (USER_NAME.test(name) && name !== '__token__') return null;
  return `invalid user name '${name.slice(0, USER_NAME_MAX)}': use letters, digits, '.', '_' and '-' (at most ${USER_NAME_MAX}, starting with a letter or digit)`;
}

/** Why `password` cannot be a new password, or null when it can. */
export function newPasswordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
