/**
 * `/stats/` as JSON: pypi.org's `top_packages` and `total_packages_size` over every package larder holds
 * (private and cached upstream), and each side's projects, files and bytes on its own. Browsers get the
 * web page (web/render/stats.ts).
 */
import { compareCodePoints, toWireJson } from './json-wire.js';

export interface ProjectSizeInput {
  name: string;
  normalized: string;
  files: number;
  bytes: number;
}

export interface SideInput {
  projects: readonly ProjectSizeInput[];
  files: number;
  bytes: number;
}

export interface StatsInput {
  private: SideInput;
  cached: SideInput;
}

export const TOP_PACKAGES = 100;

/** The `limit` largest projects, largest first; equal sizes by name. */
export function largest(projects: readonly ProjectSizeInput[], limit = TOP_PACKAGES): ProjectSizeInput[] {
  return [...projects].sort((a, b) => b.bytes - a.bytes || compareCodePoints(a.name, b.name)).slice(0, limit);
}

/** Private and cached sizes of a project added together (a merged project has both). */
export function combined(stats: StatsInput): ProjectSizeInput[] {
  const byName = new Map<string, ProjectSizeInput>();
  for (const p of [...stats.private.projects, ...stats.cached.projects]) {
    const seen = byName.get(p.normalized);
    byName.set(p.normalized, seen ? { ...seen, files: seen.files + p.files, bytes: seen.bytes + p.bytes } : { ...p });
  }
  return [...byName.values()];
}

const side = (s: SideInput) => ({ projects: s.projects.length, files: s.files, bytes: s.bytes });

export function renderStatsJson(stats: StatsInput): string {
  const top: Record<string, { size: number }> = {};
  for (const { name, bytes } of largest(combined(stats))) top[name] = { size: bytes };
  return toWireJson({
    top_packages: top,
    total_packages_size: stats.private.bytes + stats.cached.bytes,
    private: side(stats.private),
    cached: side(stats.cached),
  });
}
