/** The set-up many upload and web tests begin with: the user `alice` on a running larder, who has published one wheel. */
import { buildWheel, type BuiltDist, type WheelSpec } from '../fixtures/dists.js';
import { basicAuth, type TestLarder } from './larder.js';
import { publish } from './upload-form.js';

export const ALICE_AUTH = basicAuth('alice', 'alice-password');

/** Adds `alice` (password `alice-password`) and publishes as her the wheel `spec`, built in `dir`. */
export async function addAliceWithRelease(server: TestLarder, dir: string, spec: WheelSpec): Promise<BuiltDist> {
  await server.addUser('alice', 'alice-password');
  const wheel = await buildWheel(dir, spec);
  await publish(server.url, ALICE_AUTH, wheel);
  return wheel;
}
