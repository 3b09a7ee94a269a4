/** One request as the audit trail records it. */
export interface AuditRecord {
  time: string;
  user: string;
  groups: string[];
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  code: number;
}

/**
 * A bounded in-memory audit trail of every request: a ring of `limit` records, so that once full
 * each request still costs O(1) (dropping the oldest from the front of an array of 500,000 records
 * moved all of them, on every request).
 */
export class AuditTrail {
  private records: AuditRecord[] = [];
  /** Once full: where the oldest record is (the next to be overwritten). */
  private oldest = 0;

  private readonly limit: number;

  constructor(limit = 500_000) {
    this.limit = limit;
  }

  /** Appends one record (the oldest are dropped past the limit). */
  add(record: AuditRecord): void {
    if (this.records.length < this.limit) {
      this.records.push(record);
      return;
    }
    this.records[this.oldest] = record;
    this.oldest = (this.oldest + 1) % this.limit;
  }

  /** A copy of the records, oldest first, optionally filtered. */
  list(filter?: (r: AuditRecord) => boolean): AuditRecord[] {
    const ordered = this.oldest
      ? [...this.records.slice(this.oldest), ...this.records.slice(0, this.oldest)]
      : [...this.records];
    return filter ? ordered.filter(filter) : ordered;
  }

  /** Forgets every record. */
  clear(): void {
    this.records = [];
    this.oldest = 0;
  }
}
