/** The database URL as larder prints it: never with its password (nor query parameters, which may carry one). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from '../../src/store/postgres/database.js';

test('the password and query parameters of a database URL are never printed', () => {
  assert.equal(redactUrl('postgres://larder:p%40ss@db.example:5432/larder?sslmode=require&password=x'), 'postgres://larder:***@db.example:5432/larder');
  assert.equal(redactUrl('postgresql://db.example/larder'), 'postgresql://db.example/larder');
  assert.equal(redactUrl('postgres://only-user@db/larder'), 'postgres://only-user@db/larder');
  assert.equal(redactUrl('not a url :secret@'), 'postgres://(unparsable URL)');
});
