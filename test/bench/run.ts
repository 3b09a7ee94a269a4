import { benchControlPlane } from './control-plane.bench.ts';
import { benchCrr } from './crr.bench.ts';
import { benchDaemon } from './daemon.bench.ts';
import { benchManager } from './manager.bench.ts';
import { benchRuntime } from './runtime.bench.ts';

/** `pnpm bench`: every benchmark, printed side by side in one run. */
const suites: [string, () => Promise<void>][] = [
  ['control plane', benchControlPlane],
  ['controller kit', benchRuntime],
  ['kruise-manager', benchManager],
  ['kruise-daemon', benchDaemon],
  ['ContainerRecreateRequest', benchCrr],
];
const only = process.argv.slice(2).find((a) => a !== '--');
for (const [name, run] of suites) {
  if (only && !name.includes(only)) continue;
  console.log(`== ${name}`);
  await run();
}
