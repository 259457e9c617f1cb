/**
 * Step 4 of `larder migrate`: the check at the end. Every private record of the source (projects with
 * their roles, releases with their yanks, files, removed names, allowed names, users, tokens) and every
 * exemption is in the target with the same values, and every blob they reference is in the target with
 * the right size (with `verify`, also read back and hashed).
 */
import { createHash } from 'node:crypto';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { PolicyStore } from '../store/policy-store.js';
import { eachBounded } from './migrate-blobs.js';
import { sameFile, sameProject, sameRelease, sameToken, sameUser } from './migrate-records.js';
import type { Progress } from './progress.js';

export interface CheckResult {
  checked: {
    projects: number;
    releases: number;
    files: number;
    reservedNames: number;
    users: number;
    tokens: number;
    exemptions: number;
    blobs: number;
    bytes: number;
  };
  /** One line per difference; empty when the check passed. */
  problems: string[];
}

/** Compares the source's records with the target's; `index` or `policy` null = that part was not migrated. */
export async function checkMigration(params: {
  source: { index: IndexStore; policy: PolicyStore; blobs: BlobStore };
  target: { index: IndexStore | null; policy: PolicyStore | null; blobs: BlobStore };
  /** sha256 → size of every blob the source's records reference (read from the source). */
  blobs: Map<string, number>;
  /** Blobs only a cached upstream file needs: a missing one is not a problem of the private index. */
  cachedOnly: Set<string>;
  verify: boolean;
  progress?: Progress;
}): Promise<CheckResult> {
  const { source, target } = params;
  const checked = { projects: 0, releases: 0, files: 0, reservedNames: 0, users: 0, tokens: 0, exemptions: 0, blobs: 0, bytes: 0 };
  const problems: string[] = [];
  const index = target.index;
  if (index) {
    await index.catchUp();
    await source.index.readSnapshot(async (s) => {
      for await (const p of s.projects()) {
        checked.projects++;
        const t = await index.getProject(p.name);
        if (!t || !sameProject(t, p)) problems.push(`project ${p.name} ${t ? 'differs' : 'is missing'} in the target`);
      }
      for await (const r of s.releases()) {
        checked.releases++;
        const t = await index.getRelease(r.project, r.version);
        if (!t || !sameRelease(t, r)) problems.push(`release ${r.project} ${r.version} ${t ? 'differs' : 'is missing'} in the target`);
      }
      for await (const f of s.files()) {
        checked.files++;
        const t = await index.getFile(f.project, f.filename);
        if (!t || !sameFile(t, f)) problems.push(`file ${f.project}/${f.filename} ${t ? 'differs' : 'is missing'} in the target`);
      }
      for await (const d of s.deletedFilenames()) {
        checked.reservedNames++;
        if (!(await index.isFilenameDeleted(d.project, d.filename))) problems.push(`removed name ${d.project}/${d.filename} is not reserved in the target`);
      }
      for await (const a of s.allowedNames()) if (!(await index.isNameAllowed(a.name))) problems.push(`allowed name ${a.name} is missing in the target`);
      for await (const u of s.users()) {
        checked.users++;
        const t = await index.getUser(u.name);
        if (!t || !sameUser(t, u)) problems.push(`user ${u.name} ${t ? 'differs' : 'is missing'} in the target`);
      }
      for await (const k of s.tokens()) {
        checked.tokens++;
        const t = await index.getTokenByHash(k.hash);
        if (!t || !sameToken(t, k)) problems.push(`token ${k.id} ${t ? 'differs' : 'is missing'} in the target`);
      }
    });
  }
  if (target.policy) {
    for (const e of await source.policy.exemptions()) {
      checked.exemptions++;
      const t = await target.policy.getExemption(e.project, e.version);
      if (!t || t.reason !== e.reason || t.by !== e.by || t.at !== e.at)
        problems.push(`exemption ${e.project}==${e.version} ${t ? 'differs' : 'is missing'} in the target`);
    }
  }
  const blobs = [...params.blobs];
  params.progress?.setTotals({ files: blobs.length, bytes: params.verify ? blobs.reduce((sum, [, size]) => sum + size, 0) : undefined });
  await eachBounded(blobs, 4, async ([sha, size]) => {
    const problem = await checkBlob(target.blobs, sha, size, params.verify, params.progress);
    if (problem && !params.cachedOnly.has(sha)) problems.push(problem);
    else if (!problem) {
      checked.blobs++;
      checked.bytes += size;
    }
    params.progress?.add(1, 0);
  });
  return { checked, problems };
}

async function checkBlob(blobs: BlobStore, sha: string, size: number, verify: boolean, progress: Progress | undefined): Promise<string | null> {
  const there = await blobs.size(sha);
  if (there === null) return `blob ${sha} is missing in the target`;
  if (there !== size) return `blob ${sha} has ${there} bytes in the target, ${size} in the source`;
  if (!verify) return null;
  const hash = createHash('sha256');
  try {
    for await (const chunk of await blobs.read(sha)) {
      hash.update(chunk as Buffer);
      progress?.add(0, (chunk as Buffer).length);
    }
  } catch (err) {
    return `blob ${sha} cannot be read back from the target: ${(err as Error).message}`;
  }
  const digest = hash.digest('hex');
  return digest === sha ? null : `blob ${sha} reads back from the target with sha256 ${digest}`;
}
