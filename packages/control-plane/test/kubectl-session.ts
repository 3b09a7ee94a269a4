import type { ControlPlane } from '../src/index.ts';
import { startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor, runBinary } from './kubectl-run.ts';

export { runBinary as run };

/** A control plane of its own with the pinned kubectl pointed at it (see {@link kubectlFor}). */
export class KubectlSession {
  readonly cp: ControlPlane;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Runs kubectl. */
  readonly kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  /** Runs helm. */
  readonly helm: (args: string[]) => Promise<KubectlResult>;
  private readonly dispose: () => void;

  private constructor(cp: ControlPlane) {
    this.cp = cp;
    ({
      kubectl: this.kubectl,
      helm: this.helm,
      dispose: this.dispose,
      dir: this.dir,
      env: this.env,
    } = kubectlFor(cp));
  }

  /** Starts a control plane (with `options`) and writes its admin kubeconfig. */
  static async start(options: Parameters<typeof startControlPlane>[0] = {}): Promise<KubectlSession> {
    return new KubectlSession(await startControlPlane(options));
  }

  /** Stops the control plane and removes the directory. */
  async stop(): Promise<void> {
    await this.cp.stop();
    this.dispose();
  }
}
