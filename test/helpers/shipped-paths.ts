/**
 * Which repository paths a compose file or a Dockerfile names that do not exist (or that `.dockerignore`
 * keeps out of the build): build contexts and Dockerfiles, bind-mounted sources, env files, config and
 * secret files, files a service's command names inside a bind mount, and what COPY and ADD take from
 * the build context. Variables are read as unset: `${VAR:-default}` is its default, as in a fresh shell.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { parse } from 'yaml';

/** `${VAR:-default}` and `${VAR-default}` become the default, `${VAR}` and `$VAR` nothing, `$$` a `$`. */
export function withVariablesUnset(text: string): string {
  return text.replace(/\$\$|\$\{[A-Za-z_]\w*(?::?[-?]([^}]*))?\}|\$[A-Za-z_]\w*/g, (match, fallback: string | undefined) =>
    match === '$$' ? '$' : (fallback ?? ''),
  );
}

function interpolate(value: unknown): unknown {
  if (typeof value === 'string') return withVariablesUnset(value);
  if (Array.isArray(value)) return value.map(interpolate);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v)]));
  return value;
}

const isLocalPath = (p: string) => p.startsWith('.') || p.startsWith('/') || p.startsWith('~');
/** A word of a command that reads as a file path (has a slash or an extension), not a URL, flag or assignment. */
const looksLikePath = (w: string) => (w.includes('/') || /\.[A-Za-z0-9]+$/.test(w)) && !/:\/\/|^-|=/.test(w);
const words = (command: unknown): string[] =>
  (Array.isArray(command) ? command : typeof command === 'string' ? [command] : []).flatMap((part) => String(part).split(/[\s;&|'"()<>]+/)).filter(Boolean);

interface Mount {
  target: string;
  host: string;
}

/** Problems with the paths `file` (a compose file) names, each as `service: what: path (problem)`. */
export function composePathProblems(file: string): string[] {
  const base = dirname(file);
  const doc = interpolate(parse(readFileSync(file, 'utf8'), { merge: true })) as Record<string, any>;
  const problems: string[] = [];
  const missing = (where: string, what: string, path: string) => {
    if (!existsSync(path)) problems.push(`${where}: ${what}: ${path} (missing)`);
  };
  const namedVolumes = new Set(Object.keys(doc.volumes ?? {}));
  for (const [name, service] of Object.entries<Record<string, any>>(doc.services ?? {})) {
    const build = typeof service.build === 'string' ? { context: service.build } : service.build;
    if (build && !String(build.context ?? '.').includes('://')) {
      const context = resolve(base, build.context ?? '.');
      missing(name, 'build context', context);
      const dockerfile = resolve(context, build.dockerfile ?? 'Dockerfile');
      missing(name, 'dockerfile', dockerfile);
      if (existsSync(dockerfile)) problems.push(...dockerfilePathProblems(context, dockerfile).map((p) => `${name}: ${p}`));
    }
    const mounts: Mount[] = [];
    for (const volume of service.volumes ?? []) {
      const [source, target] =
        typeof volume === 'string'
          ? volume.includes(':')
            ? volume.split(':')
            : [undefined, volume]
          : [volume.type === 'bind' || volume.type === undefined ? volume.source : undefined, volume.target];
      if (source === undefined || source === '') continue;
      if (!isLocalPath(source)) {
        if (!namedVolumes.has(source)) problems.push(`${name}: volume: ${source} (not declared under volumes:)`);
        continue;
      }
      if (isAbsolute(source) || source.startsWith('~')) continue;
      missing(name, 'bind source', resolve(base, source));
      mounts.push({ target: posix.normalize(target), host: resolve(base, source) });
    }
    for (const envFile of [service.env_file ?? []].flat()) missing(name, 'env_file', resolve(base, typeof envFile === 'string' ? envFile : envFile.path));
    const cwd = service.working_dir ?? '/';
    for (const word of [...words(service.entrypoint), ...words(service.command)].filter(looksLikePath)) {
      const inContainer = posix.resolve(cwd, word);
      const mount = mounts.find((m) => inContainer === m.target || inContainer.startsWith(`${m.target}/`));
      if (mount) missing(name, 'file named by its command', join(mount.host, posix.relative(mount.target, inContainer)));
    }
  }
  for (const kind of ['configs', 'secrets'] as const) {
    for (const [name, entry] of Object.entries<Record<string, any>>(doc[kind] ?? {})) {
      if (typeof entry?.file === 'string') missing(`${kind}.${name}`, 'file', resolve(base, entry.file));
    }
  }
  return problems;
}

function dockerignored(context: string): (path: string) => boolean {
  const file = join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim().replace(/^\/+|\/+$/g, ''))
        .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
    : [];
  return (path) => {
    const clean = posix.normalize(path).replace(/^\.\/|\/+$/g, '');
    return patterns.some((p) => clean === p || clean.startsWith(`${p}/`));
  };
}

/**
 * Problems with what a Dockerfile takes from its build context (COPY and ADD sources: missing or ignored),
 * and with the programs its ENTRYPOINT and CMD run from `dist/`: the build compiles `dist/<p>.js` from
 * `<p>.ts`, so that source must exist.
 */
export function dockerfilePathProblems(context: string, dockerfile: string): string[] {
  const problems: string[] = [];
  const ignored = dockerignored(context);
  const lines = readFileSync(dockerfile, 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const line of lines) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    const list = args.startsWith('[') ? (JSON.parse(args) as string[]) : rest;
    switch (instruction.toUpperCase()) {
      case 'COPY':
      case 'ADD': {
        if (list.some((a) => a.startsWith('--from'))) break;
        const sources = list.filter((a) => !a.startsWith('--')).slice(0, -1);
        for (const source of sources.filter((s) => !s.includes('://'))) {
          if (!existsSync(join(context, source))) problems.push(`${instruction} ${source} (missing from the build context)`);
          else if (ignored(source)) problems.push(`${instruction} ${source} (excluded by .dockerignore)`);
        }
        break;
      }
      case 'ENTRYPOINT':
      case 'CMD':
        for (const word of list) {
          const built = /^(?:\.\/)?dist\/(.+)\.js$/.exec(word);
          if (built && !existsSync(join(context, `${built[1]}.ts`))) problems.push(`${instruction} ${word} (no ${built[1]}.ts to build it from)`);
        }
        break;
    }
  }
  return problems;
}
