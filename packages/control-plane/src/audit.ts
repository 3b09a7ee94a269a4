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

/** A bounded in-memory audit trail of every request. */
export class AuditTrail {
  private records: AuditRecord[] = [];

  private readonly limit: number;

  constructor(limit = 500_000) {
    this.limit = limit;
  }

  /** Appends one record (the oldest are dropped past the limit). */
  add(record: AuditRecord): void {
    this.records.push(record);
    if (this.records.length > this.limit) this.records.splice(0, this.records.length - this.limit);
  }

  /** A copy of the records, optionally filtered. */
  list(filter?: (r: AuditRecord) => boolean): AuditRecord[] {
    return filter ? this.records.filter(filter) : [...this.records];
  }

  /** Forgets every record. */
  clear(): void {
    this.records = [];
  }
}
