import type { ServerResponse } from 'node:http';
import { encodeWatchFrame } from '../protobuf/watch-event.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../registry/types.ts';
import type { ChangeEvent, ChangeListener } from '../store/store.ts';
import { PROTOBUF } from './negotiation.ts';
import { type Selection, selects } from './selection.ts';
import { toTable } from './table.ts';

/** Buffered bytes above which a watcher is considered stuck and closed (kube-apiserver drops slow watchers too). */
const MAX_BUFFERED = 32 * 1024 * 1024;

/** The Content-Type of a watch stream. */
export function watchContentType(protobuf: boolean): string {
  return protobuf ? `${PROTOBUF};stream=watch` : 'application/json';
}

/**
 * One event as written on the stream: a protobuf frame when `protobuf` (and the object's kind has
 * a message), else a JSON line (`json` is the object's JSON when already at hand).
 */
export function watchEventChunk(
  protobuf: boolean,
  type: string,
  obj: unknown,
  json?: string,
): string | Buffer {
  const frame = protobuf ? encodeWatchFrame(type, obj) : undefined;
  return frame ?? `{"type":"${type}","object":${json ?? JSON.stringify(obj)}}\n`;
}

/** One open watch: filters changes and writes them as JSON lines or protobuf frames. */
export class Watcher implements ChangeListener {
  private closed = false;
  lastRV: number;

  private readonly type: ResourceType;
  private readonly res: ServerResponse;
  private readonly namespace: string;
  private readonly selection: Selection;
  readonly bookmarks: boolean;
  private readonly onClose: () => void;
  /** Set when the client asked for Table output (`kubectl get -w`): events carry one-row Tables. */
  asTable: { includeObject: string | null } | undefined;
  /** Set when the client prefers protobuf and the kind has a message: events go as protobuf frames. */
  protobuf = false;
  /**
   * Set for custom resources that may be stored at another version than the one watched: every
   * event's object is converted first, events staying in order.
   */
  convert: ((obj: KubeObject) => Promise<KubeObject>) | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    type: ResourceType,
    res: ServerResponse,
    namespace: string,
    selection: Selection,
    bookmarks: boolean,
    startRV: number,
    onClose: () => void,
  ) {
    this.type = type;
    this.res = res;
    this.namespace = namespace;
    this.selection = selection;
    this.bookmarks = bookmarks;
    this.onClose = onClose;
    this.lastRV = startRV;
    res.on('close', () => this.close());
  }

  private matches(obj: KubeObject | undefined): boolean {
    if (!obj) return false;
    if (this.namespace && obj.metadata?.namespace !== this.namespace) return false;
    return selects(this.type, this.selection, obj);
  }

  /** Sends a change if it concerns this watch (objects entering or leaving a selector become ADDED/DELETED). */
  onChange(e: ChangeEvent): void {
    if (this.closed || e.rv <= this.lastRV) return;
    const now = this.matches(e.obj);
    const before = e.type === 'MODIFIED' ? this.matches(e.prev) : now;
    this.lastRV = e.rv;
    if (e.type === 'MODIFIED' && now !== before) {
      this.writeEvent(now ? 'ADDED' : 'DELETED', e.obj);
      return;
    }
    if (!now) return;
    if (this.asTable || this.convert || this.protobuf) this.writeEvent(e.type, e.obj);
    else this.write(e.line);
  }

  private writeEvent(type: string, obj: KubeObject, json?: string): void {
    const convert = this.convert;
    if (!convert) return this.writeConverted(type, obj, json);
    this.later(async () => {
      try {
        this.writeConverted(type, await convert(obj));
      } catch (err) {
        const status = (err as { toStatus?: () => Record<string, unknown> }).toStatus?.();
        this.sendError(
          status ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: String(err) },
        );
      }
    });
  }

  /** Runs a write after those already waiting for a conversion (or at once when none wait). */
  private later(write: () => void | Promise<void>): void {
    if (!this.convert) {
      void write();
      return;
    }
    this.pending = this.pending.then(write);
  }

  private writeConverted(type: string, obj: KubeObject, json?: string): void {
    if (!this.asTable) return this.write(watchEventChunk(this.protobuf, type, obj, json));
    const table = toTable(
      this.type,
      [obj],
      { resourceVersion: obj.metadata?.resourceVersion },
      this.asTable.includeObject,
    );
    this.write(watchEventChunk(false, type, table));
  }

  /** Sends a synthetic ADDED for an existing object. */
  sendAdded(obj: KubeObject, json: string): void {
    this.writeEvent('ADDED', obj, json);
  }

  /** Sends a BOOKMARK carrying the latest resourceVersion (optionally marking the end of initial events). */
  sendBookmark(rv: number, initialEventsEnd = false): void {
    if (!this.bookmarks || this.closed) return;
    const metadata = {
      resourceVersion: String(Math.max(rv, this.lastRV)),
      ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
    };
    const chunk = watchEventChunk(this.protobuf, 'BOOKMARK', {
      kind: this.type.kind,
      apiVersion: apiVersionOf(this.type),
      metadata,
    });
    this.later(() => this.write(chunk));
  }

  /** Sends an ERROR event with a Status, then ends the watch. */
  sendError(status: Record<string, unknown>): void {
    this.write(watchEventChunk(this.protobuf, 'ERROR', status));
    this.close();
  }

  private write(chunk: string | Buffer): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED) {
      this.close();
      return;
    }
    this.res.write(chunk);
  }

  /** Ends the watch. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    if (!this.res.writableEnded) this.res.end();
  }
}
