import type { ServerResponse } from 'node:http';
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

/** Injected failures for tests: writes that fail with a given status, and users cut off by a partition. */
export class FaultInjector {
  private faults: WriteFault[] = [];
  /** Requests that were failed on purpose. */
  injected = 0;
  /** Users on the far side of a network partition. */
  private readonly cutOff = new Set<string>();
  /** Responses in progress (watches included), by user: what a partition breaks. */
  private readonly inProgress = new Map<string, Set<ServerResponse>>();

  /**
   * Follows a request of `username` until its response ends. Returns whether the user is cut off:
   * then the caller must leave the request unanswered — it is held, never served, until the client
   * gives up or the partition heals (its connection is then reset), as a request lost in a network
   * partition is.
   */
  admit(username: string, res: ServerResponse): boolean {
    let open = this.inProgress.get(username);
    if (!open) {
      open = new Set();
      this.inProgress.set(username, open);
    }
    open.add(res);
    res.once('close', () => open.delete(res));
    return this.cutOff.has(username);
  }

  /**
   * Cuts `username` off, as a network partition between that client and the API server: its open
   * connections (watches, requests in flight) are reset, and its requests from now on get no answer.
   */
  partition(username: string): void {
    this.cutOff.add(username);
    for (const res of this.inProgress.get(username) ?? []) res.destroy();
  }

  /** Ends the partition of `username`: the requests it held are reset (never served). */
  heal(username: string): void {
    this.cutOff.delete(username);
    for (const res of this.inProgress.get(username) ?? []) res.destroy();
  }

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

  /** Removes every injected failure and heals every partition. */
  clear(): void {
    this.faults = [];
    for (const user of [...this.cutOff]) this.heal(user);
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
