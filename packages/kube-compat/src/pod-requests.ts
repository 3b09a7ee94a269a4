import { parseQuantity } from './quantity.ts';

/** A `v1.ResourceList`: resource name → quantity (`500m`, `1Gi`, `2`). */
export type ResourceListFields = Record<string, string | number | undefined>;

/** What the request computation reads of a container. */
export interface RequestsContainer {
  restartPolicy?: string;
  resources?: { requests?: ResourceListFields; limits?: ResourceListFields };
}

/** What the request computation reads of a PodSpec. */
export interface RequestsPodSpec {
  containers?: RequestsContainer[];
  initContainers?: RequestsContainer[];
  overhead?: ResourceListFields;
}

/**
 * Exact resource amounts: resource name → amount in nano-units (10⁻⁹), so that sums and maxima of
 * quantities lose nothing before they are rounded, as apimachinery's Quantity arithmetic.
 */
export type ResourceAmounts = Map<string, bigint>;

const NANO_SCALE = -9;

/** A quantity in nano-units; undefined when it is not a quantity. */
function nanoAmount(value: string | number | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  const q = parseQuantity(String(value));
  if (!q) return undefined;
  return q.mantissa * 10n ** BigInt(q.scale - NANO_SCALE);
}

/** A resource list as exact amounts (entries that are not quantities are left out). */
export function resourceAmounts(list: ResourceListFields | undefined): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const [name, value] of Object.entries(list ?? {})) {
    const amount = nanoAmount(value);
    if (amount !== undefined) out.set(name, amount);
  }
  return out;
}

function addInto(sum: ResourceAmounts, other: ResourceAmounts): void {
  for (const [name, amount] of other) sum.set(name, (sum.get(name) ?? 0n) + amount);
}

function maxInto(max: ResourceAmounts, other: ResourceAmounts): void {
  for (const [name, amount] of other) {
    const cur = max.get(name);
    if (cur === undefined || amount > cur) max.set(name, amount);
  }
}

/** Options of {@link podRequests} (a subset of component-helpers' PodResourcesOptions). */
export interface PodRequestsOptions {
  /**
   * Requests a container counts for the resources it does not request
   * (NonMissingContainerRequests; the scheduler scores with 100m CPU and 200Mi memory).
   */
  nonMissingContainerRequests?: ResourceListFields;
}

/**
 * A container's requests. A limit without a request counts as the request, as the API server's
 * defaulting makes it before any scheduler reads the pod.
 */
function containerRequests(c: RequestsContainer, nonMissing: ResourceAmounts): ResourceAmounts {
  const out = resourceAmounts(c.resources?.limits);
  for (const [name, amount] of resourceAmounts(c.resources?.requests)) out.set(name, amount);
  for (const [name, amount] of nonMissing) if (!out.has(name)) out.set(name, amount);
  return out;
}

/**
 * A pod's resource requests as Kubernetes computes them for scheduling (component-helpers
 * resource.PodRequests): the sum over the app containers; each init container needs its own
 * requests plus those of the restartable (sidecar) init containers started before it, and the pod
 * needs at least the largest of these; restartable init containers run alongside the app
 * containers, so their requests are added to the sum; then `spec.overhead` is added. Every
 * resource is computed: cpu, memory, ephemeral-storage and extended or other scalar resources.
 */
export function podRequests(
  spec: RequestsPodSpec | undefined,
  options: PodRequestsOptions = {},
): ResourceAmounts {
  const nonMissing = resourceAmounts(options.nonMissingContainerRequests);
  const reqs: ResourceAmounts = new Map();
  for (const c of spec?.containers ?? []) addInto(reqs, containerRequests(c, nonMissing));
  const restartable: ResourceAmounts = new Map();
  const initMax: ResourceAmounts = new Map();
  for (const c of spec?.initContainers ?? []) {
    const own = containerRequests(c, nonMissing);
    if (c.restartPolicy === 'Always') {
      addInto(reqs, own);
      addInto(restartable, own);
      maxInto(initMax, restartable);
    } else {
      const whileRunning = new Map(own);
      addInto(whileRunning, restartable);
      maxInto(initMax, whileRunning);
    }
  }
  maxInto(reqs, initMax);
  addInto(reqs, resourceAmounts(spec?.overhead));
  return reqs;
}

/** apimachinery's Quantity.Value of an exact amount: whole units, rounded up. */
export function amountValue(nano: bigint): number {
  const d = 10n ** BigInt(-NANO_SCALE);
  return Number(nano >= 0n ? (nano + d - 1n) / d : nano / d);
}

/** apimachinery's Quantity.MilliValue of an exact amount: thousandths, rounded up. */
export function amountMilliValue(nano: bigint): number {
  const d = 10n ** BigInt(-NANO_SCALE - 3);
  return Number(nano >= 0n ? (nano + d - 1n) / d : nano / d);
}
