import { benchControlPlane } from './control-plane.bench.ts';

/** `pnpm bench`: every benchmark, printed side by side in one run. */
const suites: [string, () => Promise<void>][] = [['control plane', benchControlPlane]];
const only = process.argv[2];
for (const [name, run] of suites) {
  if (only && !name.includes(only)) continue;
  console.log(`== ${name}`);
  await run();
}
