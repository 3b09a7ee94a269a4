/**
 * The daemon's metric families in Prometheus text format, without prom-client (whose import
 * alone costs ~20 MB of RSS against the daemon's 80 MB budget; ADR 0009).
 */
export class DaemonMetrics {
  private readonly buckets = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
  private readonly pulls = new Map<string, number>();
  private readonly histograms = new Map<string, { counts: number[]; sum: number; count: number }>();
  /** Containers stopped for ContainerRecreateRequests. */
  readonly crrStops = { value: 0, inc: () => void this.crrStops.value++ };
  private readonly timeouts = new Map<string, number>();
  /** Expectations dropped at their timeout, by controller. */
  readonly expectationTimeouts = {
    inc: ({ controller }: { controller: string }) =>
      void this.timeouts.set(controller, (this.timeouts.get(controller) ?? 0) + 1),
  };

  /** Records one finished pull. */
  observePull(result: 'success' | 'failure', seconds: number): void {
    this.pulls.set(result, (this.pulls.get(result) ?? 0) + 1);
    const h = this.histograms.get(result) ?? { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
    for (const [i, b] of this.buckets.entries()) if (seconds <= b) h.counts[i]!++;
    h.sum += seconds;
    h.count++;
    this.histograms.set(result, h);
  }

  /** The `/metrics` body. */
  expose(): string {
    const lines = [
      '# HELP kruise_daemon_image_pulls_total Image pulls by result',
      '# TYPE kruise_daemon_image_pulls_total counter',
      ...[...this.pulls].map(([result, n]) => `kruise_daemon_image_pulls_total{result="${result}"} ${n}`),
      '# HELP kruise_daemon_container_recreate_stops_total Containers stopped for ContainerRecreateRequests',
      '# TYPE kruise_daemon_container_recreate_stops_total counter',
      `kruise_daemon_container_recreate_stops_total ${this.crrStops.value}`,
      '# HELP kruise_daemon_expectations_timeout_total Expectations dropped unsatisfied at their timeout',
      '# TYPE kruise_daemon_expectations_timeout_total counter',
      ...[...this.timeouts].map(
        ([controller, n]) => `kruise_daemon_expectations_timeout_total{controller="${controller}"} ${n}`,
      ),
      '# HELP kruise_daemon_image_pull_seconds Time to pull an image, by result',
      '# TYPE kruise_daemon_image_pull_seconds histogram',
    ];
    for (const [result, h] of this.histograms) {
      for (const [i, b] of this.buckets.entries()) {
        lines.push(`kruise_daemon_image_pull_seconds_bucket{result="${result}",le="${b}"} ${h.counts[i]}`);
      }
      lines.push(`kruise_daemon_image_pull_seconds_bucket{result="${result}",le="+Inf"} ${h.count}`);
      lines.push(`kruise_daemon_image_pull_seconds_sum{result="${result}"} ${h.sum}`);
      lines.push(`kruise_daemon_image_pull_seconds_count{result="${result}"} ${h.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
