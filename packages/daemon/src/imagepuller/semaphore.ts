/** A counting semaphore; `limit <= 0` means unlimited. Waiters are served in order and can give up. */
export class Semaphore {
  private readonly limit: number;
  private used = 0;
  private readonly waiters: (() => void)[] = [];
  /** Highest number of holders seen at once. */
  peak = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Holders now. */
  get inUse(): number {
    return this.used;
  }

  /** Waits for a slot; rejects if `signal` aborts first. Resolves with the release function. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    const grant = () => {
      this.used++;
      this.peak = Math.max(this.peak, this.used);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.used--;
        this.waiters.shift()?.();
      };
    };
    if (this.limit <= 0 || this.used < this.limit) return Promise.resolve(grant());
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(grant());
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(wake);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
    });
  }
}
