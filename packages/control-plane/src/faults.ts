import { ApiError } from './errors.ts';

/** A rule that makes matching writes fail with a status. */
export interface WriteFault {
  /** `group/plural` (core: `/pods`), or `*`. */
  resource: string;
  /** How many more writes fail; Infinity until cleared. */
  remaining: number;
  code: number;
  /** Only requests of this user fail, when set. */
  username?: string;
  /** Verbs that fail (default: every write verb). */
  verbs?: string[];
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

const REASONS: Record<number, string> = {
  409: 'Conflict',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** Injected failures for tests: writes that fail with a given status. */
export class FaultInjector {
  private faults: WriteFault[] = [];
  /** Requests that were failed on purpose. */
  injected = 0;

  /** Makes the next `count` requests of a resource with one of `verbs` fail with `code` (reads and watches too). */
  failRequests(resource: string, count: number, code: number, verbs: string[], username?: string): void {
    this.faults.push({ resource, remaining: count, code, verbs, ...(username ? { username } : {}) });
  }

  /** Makes the next `count` writes of a resource fail with `code`. */
  failWrites(
    resource: string,
    count: number,
    code: number,
    options: { username?: string; verbs?: string[] } = {},
  ): void {
    this.faults.push({ resource, remaining: count, code, ...options });
  }

  /** Removes every injected failure. */
  clear(): void {
    this.faults = [];
  }

  /** Throws the injected error if this request should fail. */
  check(verb: string, resource: string, username: string): void {
    for (const f of this.faults) {
      if (f.remaining <= 0) continue;
      if (!f.verbs && !WRITE_VERBS.has(verb)) continue;
      if (f.resource !== '*' && f.resource !== resource) continue;
      if (f.username && f.username !== username) continue;
      if (f.verbs && !f.verbs.includes(verb)) continue;
      f.remaining--;
      this.injected++;
      const reason = REASONS[f.code] ?? 'InternalError';
      throw new ApiError(
        f.code,
        reason,
        `injected fault: ${reason}`,
        f.code === 429 ? { retryAfterSeconds: 1 } : undefined,
      );
    }
  }
}
