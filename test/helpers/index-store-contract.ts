/** What every backend's index store must do (part of the storage contract, storage-contract.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileRecord, publishInput, type StorageFactory, withStorage } from './storage-fixtures.js';

export function indexStoreContract(name: string, open: StorageFactory): void {
  describe(`${name}: index store`, () => {
    const storage = withStorage(open);

    test('a publish writes project, release, file, serial and changelog together', async () => {
      const store = storage().index;
      const result = await store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0'));
      assert.equal(result.outcome, 'created');
      const serial = (result as { serial: number }).serial;
      assert.equal(await store.lastSerial(), serial);
      assert.equal((await store.getProject('demo'))!.serial, serial);
      assert.deepEqual((await store.getProject('demo'))!.owners, ['alice']);
      assert.equal((await store.getRelease('demo', '1.0'))!.version, '1.0');
      assert.equal((await store.getFile('demo', 'demo-1.0-py3-none-any.whl'))!.sha256, 'a'.repeat(64));
      const log = await store.changesSince(0);
      assert.deepEqual(
        log.map((e) => e.action),
        ['create project', 'add file'],
      );
      assert.equal(log.at(-1)!.serial, serial);
    });

    test('identical re-publish changes nothing; other bytes conflict', async () => {
      const store = storage().index;
      const serial = await store.lastSerial();
      assert.equal((await store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0'))).outcome, 'identical');
      assert.equal(await store.lastSerial(), serial);
      assert.equal((await store.publishFile(publishInput('demo-1.0-py3-none-any.whl', '1.0', 'c'.repeat(64)))).outcome, 'conflict');
      assert.equal(await store.lastSerial(), serial);
    });

    test('the same sha256 with another blake2b_256 is a conflict (the shared same-file rule)', async () => {
      const store = storage().index;
      const serial = await store.lastSerial();
      const input = publishInput('demo-1.0-py3-none-any.whl', '1.0');
      const other = { ...input, file: { ...input.file, blake2b_256: 'e'.repeat(64) } };
      assert.equal((await store.publishFile(other)).outcome, 'conflict');
      assert.equal(await store.lastSerial(), serial);
    });

    test('serials only grow across every kind of change, and removed filenames stay reserved', async () => {
      const store = storage().index;
      const seen = [await store.lastSerial()];
      await store.publishFile(publishInput('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64)));
      seen.push(await store.lastSerial());
      assert.ok(await store.setYanked('demo', '2.0', true, 'bad', 'alice'));
      assert.deepEqual([(await store.getRelease('demo', '2.0'))!.yanked, (await store.getRelease('demo', '2.0'))!.yankedReason], [true, 'bad']);
      seen.push(await store.lastSerial());
      await store.setYanked('demo', '2.0', false, null, 'alice');
      seen.push(await store.lastSerial());
      assert.equal(await store.setYanked('demo', '9.9', true, null, 'alice'), null);
      const removed = await store.remove('demo', '2.0', 'demo-2.0-py3-none-any.whl', 'alice');
      assert.equal(removed!.length, 1);
      seen.push(await store.lastSerial());
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `serial ${seen[i]} after ${seen[i - 1]}`);
      assert.equal(await store.isFilenameDeleted('demo', 'demo-2.0-py3-none-any.whl'), true);
      assert.equal((await store.publishFile(publishInput('demo-2.0-py3-none-any.whl', '2.0', 'd'.repeat(64)))).outcome, 'reused-filename');
      assert.equal((await store.getProject('demo'))!.serial, await store.lastSerial());
    });

    test('prefix ranges do not leak into projects whose names extend another', async () => {
      const store = storage().index;
      await store.publishFile(publishInput('foo-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'foo'));
      await store.publishFile(publishInput('foo_bar-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'foo-bar'));
      assert.deepEqual(
        (await store.getFiles('foo')).map((f) => f.filename),
        ['foo-1.0-py3-none-any.whl'],
      );
      assert.deepEqual(
        (await store.getReleases('foo')).map((r) => r.project),
        ['foo'],
      );
      assert.deepEqual((await Array.fromAsync(store.listProjects())).map((p) => p.name).sort(), ['demo', 'foo', 'foo-bar']);
      assert.equal(await store.projectCount(), 3);
      assert.equal((await Array.fromAsync(store.allFiles())).length, 3);
    });

    test('a project status is a change of the project: serial, changelog, record; active clears it', async () => {
      const store = storage().index;
      const before = await store.lastSerial();
      const serial = await store.setProjectStatus('demo', 'archived', 'moved to demo2', 'alice');
      assert.ok(serial !== null && serial > before);
      const archived = (await store.getProject('demo'))!;
      assert.deepEqual([archived.status, archived.statusReason, archived.serial], ['archived', 'moved to demo2', serial]);
      assert.deepEqual(
        (await store.changesSince(before)).map((e) => [e.action, e.user]),
        [['set project status', 'alice']],
      );
      assert.equal((await Array.fromAsync(store.listProjects())).find((p) => p.name === 'demo')!.status, 'archived');
      await store.setProjectStatus('demo', 'quarantined', null, null);
      const quarantined = (await store.getProject('demo'))!;
      assert.deepEqual([quarantined.status, quarantined.statusReason], ['quarantined', undefined]);
      await store.setProjectStatus('demo', 'active', null, null);
      const active = (await store.getProject('demo'))!;
      assert.ok(!('status' in active) && !('statusReason' in active), JSON.stringify(active));
      assert.equal(await store.setProjectStatus('nope', 'archived', null, null), null);
    });

    test('maintainers, users, tokens and allowed names; removing a user takes their tokens and roles', async () => {
      const store = storage().index;
      const at = new Date().toISOString();
      await store.putUser({ name: 'bob', passwordHash: 'h', admin: false, createdAt: at });
      assert.equal(await store.addMaintainer('demo', 'bob', 'alice'), true);
      assert.equal(await store.addMaintainer('nope', 'bob', 'alice'), false);
      assert.deepEqual((await store.getProject('demo'))!.maintainers, ['bob']);
      await store.putToken({ id: 'abc', hash: 'f'.repeat(64), user: 'bob', projects: null, description: null, createdAt: at });
      assert.equal((await store.getTokenByHash('f'.repeat(64)))!.user, 'bob');
      assert.deepEqual(
        (await store.listTokens('bob')).map((t) => t.id),
        ['abc'],
      );
      assert.deepEqual(await store.listTokens('alice'), []);
      assert.equal(await store.removeToken('nope'), false);
      await store.allowName('some-name', 'root');
      assert.equal(await store.isNameAllowed('some-name'), true);
      assert.equal(await store.isNameAllowed('other-name'), false);
      assert.equal(await store.removeUser('bob'), true);
      assert.equal(await store.getUser('bob'), undefined);
      assert.deepEqual(await store.listTokens(), []);
      assert.deepEqual((await store.getProject('demo'))!.maintainers, []);
      assert.equal(await store.removeUser('bob'), false);
    });

    test('a token keeps the expiry it was written with; one without an expiry reads back without one', async () => {
      const store = storage().index;
      const at = '2026-11-25T12:00:00.000Z';
      await store.putUser({ name: 'tia', passwordHash: 'h', admin: false, createdAt: at });
      const lasting = { id: '111111111111', hash: '1'.repeat(64), user: 'tia', projects: ['demo'], description: 'ci', createdAt: at };
      const expiring = { ...lasting, id: '222222222222', hash: '2'.repeat(64), projects: null, expiresAt: '2027-02-23T12:00:00.000Z' };
      await store.putToken(lasting);
      await store.putToken(expiring);
      assert.deepEqual({ ...(await store.getTokenByHash(lasting.hash)) }, lasting);
      assert.deepEqual({ ...(await store.getTokenByHash(expiring.hash)) }, expiring);
      const snapshot = await store.readSnapshot(async (s) => (await Array.fromAsync(s.tokens())).filter((t) => t.user === 'tia').map((t) => ({ ...t })));
      assert.deepEqual(
        snapshot.sort((a, b) => a.id.localeCompare(b.id)),
        [lasting, expiring],
      );
      assert.equal(await store.removeUser('tia'), true);
    });

    test('a read snapshot holds every record kind', async () => {
      const store = storage().index;
      const counts = await store.readSnapshot(async (view) => ({
        projects: (await Array.fromAsync(view.projects())).length,
        releases: (await Array.fromAsync(view.releases())).length,
        files: (await Array.fromAsync(view.files())).length,
        deleted: await Array.fromAsync(view.deletedFilenames()),
        allowed: (await Array.fromAsync(view.allowedNames())).map((a) => [a.name, a.by]),
        changes: (await Array.fromAsync(view.changelog())).length,
      }));
      assert.deepEqual(
        { ...counts, deleted: counts.deleted.map((d) => [d.project, d.filename]) },
        {
          projects: 3,
          releases: 4,
          files: 3,
          deleted: [['demo', 'demo-2.0-py3-none-any.whl']],
          allowed: [['some-name', 'root']],
          changes: (await store.changesSince(0)).length,
        },
      );
    });

    test('an import is one transaction: its changes take new serials, and a failure keeps none', async () => {
      const store = storage().index;
      const before = await store.lastSerial();
      await assert.rejects(
        store.importRecords(async (target) => {
          target.addProject({ name: 'half', displayName: 'Half', createdAt: '', serial: 99, owners: [], maintainers: [] });
          throw new Error('stop');
        }),
      );
      assert.equal(await store.getProject('half'), undefined);
      assert.equal(await store.lastSerial(), before);
      await store.importRecords(async (target) => {
        target.addProject({ name: 'whole', displayName: 'Whole', createdAt: '', serial: 99, owners: ['alice'], maintainers: [] });
        target.addRelease({ project: 'whole', version: '1.0', metadata: {}, createdAt: '', yanked: true, yankedReason: 'r' });
        assert.ok(await target.getProject('whole'), 'reads inside see the writes so far');
        target.addFile(fileRecord('whole', '1.0', 'whole-1.0.tar.gz'));
        target.reserveFilename({ project: 'whole', filename: 'whole-0.1.tar.gz', deletedAt: '2024-01-01T00:00:00.000Z' });
      });
      assert.equal((await store.getProject('whole'))!.serial, before + 2);
      assert.equal((await store.getRelease('whole', '1.0'))!.yankedReason, 'r');
      assert.deepEqual(
        (await store.changesSince(before)).map((c) => c.action),
        ['create project', 'add file'],
      );
      assert.equal(await store.isFilenameDeleted('whole', 'whole-0.1.tar.gz'), true);
    });

    test('reads inside an import answer the staged writes together with the stored records', async () => {
      const store = storage().index;
      const before = await store.lastSerial();
      const names = (await Array.fromAsync(store.listProjects())).map((p) => p.name);
      const count = await store.projectCount();
      const files = (await Array.fromAsync(store.allFiles())).length;
      const at = '2026-11-25T12:00:00.000Z';
      const inside = await store.importRecords(async (target) => {
        target.addProject({ name: 'aaa-staged', displayName: 'Aaa', createdAt: at, serial: 7, owners: ['alice'], maintainers: [] });
        target.addRelease({ project: 'aaa-staged', version: '1.0', metadata: {}, createdAt: at, yanked: false, yankedReason: null });
        target.addFile(fileRecord('aaa-staged', '1.0', 'aaa_staged-1.0.tar.gz'));
        target.putUser({ name: 'stan', passwordHash: 'h', admin: false, createdAt: at });
        target.putAllowedName({ name: 'staged-name', by: null, at });
        return {
          serial: await target.lastSerial(),
          project: await target.getProject('aaa-staged'),
          names: (await Array.fromAsync(target.listProjects())).map((p) => p.name),
          count: await target.projectCount(),
          files: (await target.getFiles('aaa-staged')).map((f) => f.filename),
          all: (await Array.fromAsync(target.allFiles())).length,
          changes: (await target.changesSince(before)).map((c) => [c.serial, c.action]),
          user: (await target.getUser('stan'))?.name,
          users: (await target.listUsers()).some((u) => u.name === 'stan'),
          allowed: await target.isNameAllowed('staged-name'),
        };
      });
      assert.deepEqual(inside, {
        serial: before + 2,
        project: { name: 'aaa-staged', displayName: 'Aaa', createdAt: at, serial: before + 2, owners: ['alice'], maintainers: [] },
        names: ['aaa-staged', ...names],
        count: count + 1,
        files: ['aaa_staged-1.0.tar.gz'],
        all: files + 1,
        changes: [
          [before + 1, 'create project'],
          [before + 2, 'add file'],
        ],
        user: 'stan',
        users: true,
        allowed: true,
      });
      assert.deepEqual(await store.getProject('aaa-staged'), inside.project, 'the store took the writes as staged');
      assert.equal(await store.lastSerial(), before + 2);
      assert.equal(await store.removeUser('stan'), true);
    });

    test('a read snapshot stays as it was while the store changes between its reads', async () => {
      const store = storage().index;
      const seen = await store.readSnapshot(async (view) => {
        const first = (await Array.fromAsync(view.projects())).map((p) => p.name);
        await store.publishFile(publishInput('later-1.0-py3-none-any.whl', '1.0', 'f'.repeat(64), 'later'));
        const again = (await Array.fromAsync(view.projects())).map((p) => p.name);
        const files = (await Array.fromAsync(view.files())).map((f) => f.project);
        return { first, again, files };
      });
      assert.ok(!seen.first.includes('later'));
      assert.deepEqual(seen.again, seen.first);
      assert.ok(!seen.files.includes('later'), 'a file written after the snapshot began is not in it');
      assert.ok(await store.getProject('later'), 'the write itself landed');
      assert.ok(await store.remove('later', null, null, 'alice'));
    });

    test("a release's metadata comes back with its keys in the order written (project_urls are shown in it)", async () => {
      const store = storage().index;
      const input = publishInput('ordered-1.0-py3-none-any.whl', '1.0', 'e'.repeat(64), 'ordered');
      const projectUrls = { Source: 'https://example.test/src', Homepage: 'https://example.test/', 'Issue tracker': 'https://example.test/issues' };
      input.release.metadata = { version: '1.0', name: 'ordered', summary: 'x', project_urls: projectUrls };
      assert.equal((await store.publishFile(input)).outcome, 'created');
      const metadata = (await store.getRelease('ordered', '1.0'))!.metadata;
      assert.deepEqual(Object.keys(metadata), ['version', 'name', 'summary', 'project_urls']);
      assert.deepEqual(Object.keys(metadata.project_urls as object), ['Source', 'Homepage', 'Issue tracker']);
    });

    test('logged-out sessions are recorded without a serial, and forgotten once they would have ended', async () => {
      const store = storage().index;
      const serial = await store.lastSerial();
      assert.equal(await store.isSessionEnded('session-a'), false);
      await store.endSession({ id: 'session-a', until: 1_000 }, 0);
      await store.endSession({ id: 'session-b', until: 5_000 }, 500);
      await store.endSession({ id: 'session-b', until: 5_000 }, 600);
      assert.ok(await store.isSessionEnded('session-a'));
      assert.ok(await store.isSessionEnded('session-b'));
      await store.endSession({ id: 'session-c', until: 9_000 }, 1_000);
      assert.equal(await store.isSessionEnded('session-a'), false, 'a session past its end needs no record');
      assert.ok(await store.isSessionEnded('session-b'));
      assert.ok(await store.isSessionEnded('session-c'));
      assert.equal(await store.lastSerial(), serial);
    });

    test('removing a project removes its releases and files but keeps the serial counter', async () => {
      const store = storage().index;
      const before = await store.lastSerial();
      const removed = await store.remove('demo', null, null, 'alice');
      assert.ok(removed && removed.length >= 1);
      assert.equal(await store.getProject('demo'), undefined);
      assert.equal((await store.getReleases('demo')).length, 0);
      assert.equal((await store.getFiles('demo')).length, 0);
      assert.ok((await store.lastSerial()) > before);
      assert.equal(await store.remove('demo', null, null, 'alice'), null);
    });
  });
}
