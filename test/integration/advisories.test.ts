/**
 * Imported security advisories (docs/advisories.md) against a running `larder serve` (a child process) and a
 * fake upstream: an OSV zip (malware covering every version, malware for one version, a HIGH and a LOW
 * vulnerability with a fixed version) imported with the real CLI while the server runs blocks at its next
 * request, files cached before included: blocked releases are left off simple pages (HTML and JSON) and the
 * JSON API, their files answer 403 naming the advisory (and severity), a project covered whole answers 403;
 * `larder policy allow` exempts a release; `advisories report` and `status`; a newer import replaces the
 * set; private projects are never blocked; project pages link the advisory; /metrics counts blocks.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { addAlice, type ChildServer, startChildServer } from '../helpers/child-server.js';
import { runLarderCli, assertCliOk } from '../helpers/cli.js';
import { basicAuth, startLarder } from '../helpers/larder.js';
import { type OsvFields, writeOsvZip } from '../helpers/osv-zip.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

const MAL_ALL: OsvFields = { id: 'MAL-2026-100', package: 'Evil_All', events: [{ introduced: '0' }] };
const MAL_ONE: OsvFields = { id: 'MAL-2026-200', package: 'trojan-lib', versions: ['1.1'] };
const HIGH: OsvFields = { id: 'GHSA-hhhh-hhhh-hhhh', package: 'vuln-high', events: [{ introduced: '0' }, { fixed: '2.0' }], databaseSeverity: 'HIGH' };
/** Only a CVSS vector (base score 1.6: low). */
const LOW: OsvFields = {
  id: 'PYSEC-2026-300',
  package: 'vuln-low',
  events: [{ introduced: '0' }, { fixed: '2.0' }],
  cvss: 'CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N',
};
/** Covers the private project's name. */
const MAL_PRIVATE: OsvFields = { id: 'MAL-2026-400', package: 'acme-internal', events: [{ introduced: '0' }] };

interface PageJson {
  files: { filename: string; url: string }[];
  versions: string[];
}

describe('advisories', () => {
  const dir = suiteTempDir('larder-advisories-');
  let up: FakeUpstream;
  let d: Record<string, BuiltDist>;
  let allZip: string;

  before(async () => {
    d = await buildWheelTable(dir, {
      evil: ['evil-all', '1.0'],
      evil09: ['evil-all', '0.9'],
      trojan10: ['trojan-lib', '1.0'],
      trojan11: ['trojan-lib', '1.1'],
      high10: ['vuln-high', '1.0'],
      high20: ['vuln-high', '2.0'],
      low10: ['vuln-low', '1.0'],
      low20: ['vuln-low', '2.0'],
      mine: ['acme-internal', '1.0'],
    });
    up = await startFakeUpstream();
    up.addProject('evil-all', [d.evil09!, d.evil!]);
    up.addProject('trojan-lib', [d.trojan10!, d.trojan11!]);
    up.addProject('vuln-high', [d.high10!, d.high20!]);
    up.addProject('vuln-low', [d.low10!, d.low20!]);
    allZip = await writeOsvZip(dir, 'all.zip', [MAL_ALL, MAL_ONE, HIGH, LOW, MAL_PRIVATE], { 'README.txt': 'not an advisory' });
  });

  after(() => up.close());

  test('a live import blocks at the next request, cached files included; exemptions, the report, a newer import, pages and metrics', {
    timeout: 120_000,
  }, async () => {
    const data = join(dir, 'live');
    await addAlice(data);
    const env = { LARDER_DATA: data, USER: 'ops-alice', LARDER_BLOCK_VULNERABLE: 'moderate' };
    let server: ChildServer | null = null;
    try {
      server = await startChildServer(['--data', data, '--upstream', up.url, '--block-vulnerable', 'moderate']);
      const url = server.url;
      const pageJson = async (name: string) => (await fetch(`${url}/simple/${name}/`, { headers: { Accept: PIP_ACCEPT } })).json() as Promise<PageJson>;
      const fileUrl = async (name: string, filename: string) =>
        new URL((await pageJson(name)).files.find((f) => f.filename === filename)!.url, `${url}/simple/${name}/`).href;

      // Before the import: everything is served; three files get cached.
      const urls = {
        high10: await fileUrl('vuln-high', d.high10!.filename),
        trojan11: await fileUrl('trojan-lib', d.trojan11!.filename),
        low10: await fileUrl('vuln-low', d.low10!.filename),
      };
      for (const file of Object.values(urls)) assert.equal((await fetch(file).then(async (r) => ({ s: r.status, b: await r.arrayBuffer() }))).s, 200, file);
      await publish(url, basicAuth('alice', 'alice-password'), d.mine!);

      const imported = await runLarderCli(['advisories', 'import', allZip], { env });
      assertCliOk(imported);
      assert.equal(imported.stdout, `loaded 5 advisories naming 5 PyPI projects from ${allZip}\n`);

      // At the next request, with no wait: the cached files answer 403 naming the advisory (and severity).
      const high10 = await fetch(urls.high10);
      assert.equal(high10.status, 403);
      assert.match(
        await high10.text(),
        /^vuln-high 1\.0 is blocked by larder: vulnerability GHSA-hhhh-hhhh-hhhh, severity high \(LARDER_BLOCK_VULNERABLE=moderate\), fixed in 2\.0 \(https:\/\/osv\.dev\/vulnerability\/GHSA-hhhh-hhhh-hhhh\)/,
      );
      const trojan11 = await fetch(urls.trojan11);
      assert.equal(trojan11.status, 403);
      assert.match(await trojan11.text(), /trojan-lib 1\.1 is blocked by larder: malicious package advisory MAL-2026-200/);
      assert.equal((await fetch(urls.low10)).status, 200, 'LOW is below the threshold');

      // Pages (JSON and HTML) and the JSON API leave blocked releases off.
      const trojanPage = await pageJson('trojan-lib');
      assert.deepEqual(
        trojanPage.files.map((f) => f.filename),
        [d.trojan10!.filename],
      );
      assert.deepEqual(trojanPage.versions, ['1.0']);
      const highHtml = await (await fetch(`${url}/simple/vuln-high/`, { headers: { Accept: 'text/html' } })).text();
      assert.doesNotMatch(highHtml, new RegExp(d.high10!.filename.replace(/\./g, '\\.')));
      assert.match(highHtml, new RegExp(d.high20!.filename.replace(/\./g, '\\.')));
      const api = (await (await fetch(`${url}/pypi/vuln-high/json`)).json()) as { releases: Record<string, unknown> };
      assert.deepEqual(Object.keys(api.releases), ['2.0']);
      assert.equal((await fetch(`${url}/pypi/vuln-high/1.0/json`)).status, 404);
      assert.deepEqual(Object.keys(((await (await fetch(`${url}/pypi/vuln-low/json`)).json()) as { releases: object }).releases).sort(), ['1.0', '2.0']);

      // A malware advisory covering every version blocks the whole project: page, JSON API and files.
      for (const path of ['/simple/evil-all/', '/pypi/evil-all/json', `/simple/evil-all/`]) {
        const refused = await fetch(`${url}${path}`, { headers: { Accept: PIP_ACCEPT } });
        assert.equal(refused.status, 403, path);
        assert.match(await refused.text(), /evil-all is blocked by larder: malicious package advisory MAL-2026-100 covers every version/);
      }
      // Private projects are never blocked.
      assert.equal((await fetch(`${url}/simple/acme-internal/`)).status, 200);

      // The project pages show the blocked releases with a link to the advisory.
      const projectPage = await (await fetch(`${url}/project/vuln-high/`)).text();
      assert.match(projectPage, /href="https:\/\/osv\.dev\/vulnerability\/GHSA-hhhh-hhhh-hhhh">GHSA-hhhh-hhhh-hhhh<\/a>/);
      assert.match(projectPage, /Releases a security advisory blocks are left off the index altogether/);
      const evilPage = await fetch(`${url}/project/evil-all/`);
      assert.equal(evilPage.status, 403);
      assert.match(await evilPage.text(), /href="https:\/\/osv\.dev\/vulnerability\/MAL-2026-100"/);

      // Status and report.
      const status = await runLarderCli(['advisories', 'status'], { env });
      assertCliOk(status);
      assert.match(
        status.stdout,
        new RegExp(
          `^5 advisories, imported \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC from ${allZip} by ops-alice\nmalware blocked; vulnerabilities of severity moderate or worse blocked\n$`,
        ),
      );
      const report = await runLarderCli(['advisories', 'report'], { env });
      assertCliOk(report);
      const rows = report.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s{2,}/));
      assert.deepEqual(rows, [
        ['PROJECT', 'VERSION', 'FILE', 'ADVISORY', 'SEVERITY', 'STATUS'],
        ['trojan-lib', '1.1', d.trojan11!.filename, 'MAL-2026-200', 'malware', 'blocked'],
        ['vuln-high', '1.0', d.high10!.filename, 'GHSA-hhhh-hhhh-hhhh', 'high', 'blocked'],
        ['vuln-low', '1.0', d.low10!.filename, 'PYSEC-2026-300', 'low', 'not blocked'],
      ]);

      // `larder policy explain` says so too.
      const explained = await runLarderCli(['policy', 'explain', 'vuln-high==1.0'], { env: { ...env, LARDER_UPSTREAM: up.url } });
      assertCliOk(explained);
      assert.match(
        explained.stdout,
        /^vuln-high 1\.0: blocked \(security advisory \(.*\) GHSA-hhhh-hhhh-hhhh\)\nvuln-high 1\.0 is blocked by larder: vulnerability GHSA-hhhh-hhhh-hhhh, severity high/,
      );

      // The break-glass exemption lets a blocked release through at the next request.
      assertCliOk(await runLarderCli(['policy', 'allow', 'vuln-high==1.0', '--reason', 'patched locally'], { env }));
      assert.equal((await fetch(urls.high10)).status, 200);
      assert.ok((await pageJson('vuln-high')).files.some((f) => f.filename === d.high10!.filename));
      assert.match((await runLarderCli(['advisories', 'report'], { env })).stdout, /vuln-high\s+1\.0\s+\S+\s+GHSA-hhhh-hhhh-hhhh\s+high\s+exempted/);
      assertCliOk(await runLarderCli(['policy', 'revoke', 'vuln-high==1.0'], { env }));
      assert.equal((await fetch(urls.high10)).status, 403);

      // /metrics counts blocks by reason.
      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.match(metrics, /larder_advisory_blocks_total\{reason="malware",action="refused"\} [1-9]/);
      assert.match(metrics, /larder_advisory_blocks_total\{reason="vulnerable",action="refused"\} [1-9]/);
      assert.match(metrics, /larder_advisory_blocks_total\{reason="vulnerable",action="hidden"\} [1-9]/);

      // A newer import replaces the set: what it lacks stops applying.
      const newer = await writeOsvZip(dir, 'newer.zip', [MAL_ONE]);
      assert.equal((await runLarderCli(['advisories', 'import', newer], { env })).stdout, `loaded 1 advisory naming 1 PyPI project from ${newer}\n`);
      assert.equal((await fetch(urls.high10)).status, 200);
      assert.equal((await fetch(`${url}/simple/evil-all/`)).status, 200);
      assert.equal((await fetch(urls.trojan11)).status, 403);
    } finally {
      await server?.stop('SIGTERM');
    }
  });

  test('LARDER_BLOCK_MALWARE=false and LARDER_BLOCK_VULNERABLE=off (the default) block nothing; the report still lists what the advisories name', async () => {
    const data = join(dir, 'off');
    const env = { LARDER_DATA: data, LARDER_BLOCK_MALWARE: 'false' };
    assertCliOk(await runLarderCli(['advisories', 'import', allZip], { env }));
    const l = await startLarder({ upstream: up.url, upstreamRetries: 0, blockMalware: false }, data);
    try {
      assert.equal((await fetch(`${l.url}/simple/evil-all/`)).status, 200);
      const trojan = (await (await fetch(`${l.url}/simple/trojan-lib/`, { headers: { Accept: PIP_ACCEPT } })).json()) as PageJson;
      assert.deepEqual(trojan.versions, ['1.0', '1.1']);
      const file = trojan.files.find((f) => f.filename === d.trojan11!.filename)!;
      const got = await fetch(new URL(file.url, `${l.url}/simple/trojan-lib/`));
      assert.equal(got.status, 200);
      await got.arrayBuffer();
    } finally {
      await l.stop();
    }
    const report = await runLarderCli(['advisories', 'report'], { env });
    assert.match(report.stdout, /trojan-lib\s+1\.1\s+\S+\s+MAL-2026-200\s+malware\s+not blocked/);
    assert.match(
      (await runLarderCli(['advisories', 'status'], { env })).stdout,
      /malware not blocked \(LARDER_BLOCK_MALWARE=false\); vulnerabilities not blocked \(LARDER_BLOCK_VULNERABLE=off\)/,
    );
  });

  test('an exemption for one release of a project covered whole lifts the project block; its other releases stay off', async () => {
    const data = join(dir, 'exempt');
    const env = { LARDER_DATA: data };
    assertCliOk(await runLarderCli(['advisories', 'import', allZip], { env }));
    const l = await startLarder({ upstream: up.url, upstreamRetries: 0 }, data);
    try {
      assert.equal((await fetch(`${l.url}/simple/evil-all/`)).status, 403);
      await l.stop();
      assertCliOk(await runLarderCli(['policy', 'allow', 'evil-all==1.0', '--reason', 'vetted'], { env }));
      const again = await startLarder({ upstream: up.url, upstreamRetries: 0 }, data);
      try {
        const page = (await (await fetch(`${again.url}/simple/evil-all/`, { headers: { Accept: PIP_ACCEPT } })).json()) as PageJson;
        assert.deepEqual(
          page.files.map((f) => f.filename),
          [d.evil!.filename],
        );
        const blocked = await fetch(`${again.url}/pypi/evil-all/0.9/json`);
        assert.equal(blocked.status, 404);
      } finally {
        await again.stop();
      }
    } finally {
      await l.stop();
    }
  });

  test('a file that is not a zip, or a zip with no advisory documents, is refused and changes nothing', async () => {
    const env = { LARDER_DATA: join(dir, 'bad') };
    const missing = await runLarderCli(['advisories', 'import', join(dir, 'nope.zip')], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.zip: no such file/);
    const text = join(dir, 'all.txt');
    await writeFile(text, 'not a zip');
    const notZip = await runLarderCli(['advisories', 'import', text], { env });
    assert.equal(notZip.code, 1);
    assert.match(notZip.stderr, /all\.txt is not an OSV export zip larder accepts: File is not a zipfile/);
    const empty = await writeOsvZip(dir, 'empty.zip', [], { 'README.txt': 'nothing' });
    const refused = await runLarderCli(['advisories', 'import', empty], { env });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not an OSV export zip larder accepts: it holds no \.json documents/);
    assert.match((await runLarderCli(['advisories', 'status'], { env })).stdout, /^no advisories imported/);
  });
});
