import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueMetrics } from '../queue/work-queue.ts';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The process's metrics in a private registry, with controller-runtime's names for reconciles,
 * work queues and leader election, so existing dashboards and alerts keep working.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Expectations dropped unsatisfied after their timeout: `kruise_<component>_expectations_timeout_total{controller}`. */
  readonly expectationsTimeout: Counter<'controller'>;

  /** `component` names the process in kruise's own metrics (default `manager`). */
  constructor(options: { component?: string } = {}) {
    this.expectationsTimeout = new Counter({
      name: `kruise_${options.component ?? 'manager'}_expectations_timeout_total`,
      help: 'Total number of expectations dropped unsatisfied after the expectation timeout, per controller',
      labelNames: ['controller'],
      registers: [this.registry],
    });
  }
  readonly reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly terminalErrors = new Counter({
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly reconcilePanics = new Counter({
    name: 'controller_runtime_reconcile_panics_total',
    help: 'Total number of reconciliation panics per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly maxConcurrent = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly activeWorkers = new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name', 'controller'],
    registers: [this.registry],
  });
  readonly queueAdds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name', 'controller'],
    registers: [this.registry],
  });
  readonly queueLatency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name', 'controller'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: ['name', 'controller'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly queueRetries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name', 'controller'],
    registers: [this.registry],
  });
  readonly longestRunning = new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running',
    labelNames: ['name', 'controller'],
    registers: [this.registry],
  });
  readonly webhookRequests = new Counter({
    name: 'controller_runtime_webhook_requests_total',
    help: 'Total number of admission requests by HTTP status code.',
    labelNames: ['webhook', 'code'],
    registers: [this.registry],
  });
  readonly webhookLatency = new Histogram({
    name: 'controller_runtime_webhook_latency_seconds',
    help: 'Histogram of the latency of processing admission requests',
    labelNames: ['webhook'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly webhookInFlight = new Gauge({
    name: 'controller_runtime_webhook_requests_in_flight',
    help: 'Current number of admission requests being served.',
    labelNames: ['webhook'],
    registers: [this.registry],
  });
  readonly leaderStatus = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
    labelNames: ['name'],
    registers: [this.registry],
  });

  /** The queue hooks for one controller's queue. */
  queueMetrics(name: string): QueueMetrics {
    const labels = { name, controller: name };
    return {
      add: () => this.queueAdds.inc(labels),
      depth: (n) => this.queueDepth.set(labels, n),
      queued: (s) => this.queueLatency.observe(labels, s),
      worked: (s) => this.workDuration.observe(labels, s),
      retry: () => this.queueRetries.inc(labels),
    };
  }

  /** The text exposition for `/metrics`. */
  async expose(): Promise<string> {
    return this.registry.metrics();
  }
}
