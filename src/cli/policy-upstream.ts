/**
 * The upstream as `larder policy explain` sees it: every configured upstream's chain (sources/upstream-chain.ts,
 * with its cache), routed as the server routes them, under the same policy code the server applies. Offline,
 * only what is cached is read.
 */
import type { Clock } from '../base/clock.js';
import type { Config } from '../config/schema.js';
import { buildUpstreamChain, commandChainDeps, routeChains } from '../sources/upstream-chain.js';
import { createLogger } from '../logger.js';
import { Policy } from '../policy/policy.js';
import { PolicySource } from '../policy/policy-source.js';
import type { Storage } from '../store/storage.js';
import { UsageError } from './args.js';

export interface PolicyUpstream {
  source: PolicySource;
  close(): Promise<void>;
}

/** An explanation is not a request for the release: nothing is counted. */
const NO_AUDIT = { decided: () => {}, unknownUploadTime: () => {} };

export async function openPolicyUpstream(config: Config, storage: Storage, clock: Clock): Promise<PolicyUpstream> {
  const specs = config.upstreams;
  if (!specs.length) throw new UsageError('no upstream is configured (LARDER_UPSTREAM=none): the policy applies only to upstream projects');
  await storage.blobs.init();
  const deps = commandChainDeps(config, storage, createLogger({ logLevel: 'error' }, process.stderr), clock);
  const chains = specs.map((spec) => buildUpstreamChain(spec, config, deps));
  const router = routeChains(chains, specs);
  return {
    source: new PolicySource(router, new Policy(config, storage.policy, clock), NO_AUDIT),
    async close() {
      await Promise.all(chains.flatMap((c) => [c.cache.files.drain(), c.cache.settled()]));
      await Promise.all(chains.map((c) => c.client.close()));
    },
  };
}
