import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  isPubPodAvailable,
  isPubPodStateConsistent,
  podUnavailableChanged,
} from '../../src/workload/pub/pod-availability.ts';
import { canResizeInPlace } from '../../src/workload/pub/resize.ts';

const DIGEST = 'sha256:1111111111111111111111111111111111111111111111111111111111111111';
const OTHER = 'sha256:2222222222222222222222222222222222222222222222222222222222222222';
const hash = () => 0;

function pod(image: string, imageID: string | undefined, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', ...extra },
    spec: { containers: [{ name: 'c', image }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses:
        imageID === undefined ? [] : [{ name: 'c', image, imageID, ready: true, restartCount: 0 } as never],
    },
  };
}

describe('pod availability as a PodUnavailableBudget reads it', () => {
  it('counts a digest-pinned pod available when its runtime reports the digest under another repository (#2570)', () => {
    const image = `registry.k8s.io/ingress-nginx/controller@${DIGEST}`;
    expect(
      isPubPodStateConsistent(pod(image, `registry.k8s.io/ingress-nginx/controller@${DIGEST}`), hash),
    ).toBe(true);
    // containerd reports the image's first repo digest: another name of the same image
    expect(isPubPodStateConsistent(pod(image, `mirror.local/controller@${DIGEST}`), hash)).toBe(true);
    // …or only the config digest (no repo digest): nothing to compare, nothing in progress
    expect(isPubPodStateConsistent(pod(image, OTHER), hash)).toBe(true);
    expect(isPubPodAvailable(pod(image, OTHER), hash)).toBe(true);
  });

  it('counts a digest-pinned pod unavailable while it runs another digest or has not reported', () => {
    const image = `busybox@${DIGEST}`;
    expect(isPubPodStateConsistent(pod(image, `docker.io/library/busybox@${OTHER}`), hash)).toBe(false);
    expect(isPubPodStateConsistent(pod(image, undefined), hash)).toBe(false);
  });

  it('counts an in-place update in progress as inconsistent, and a pod with an unavailable label as not ready', () => {
    const state = JSON.stringify({
      revision: 'r2',
      updateTimestamp: '2026-12-07T10:00:00Z',
      lastContainerStatuses: { c: { imageID: 'docker.io/library/busybox@sha256:old' } },
    });
    const updating = pod('busybox:2', 'docker.io/library/busybox@sha256:old', {
      annotations: { 'apps.kruise.io/inplace-update-state': state },
    });
    // kubelet still reports the old image and imageID
    (updating.status!.containerStatuses![0] as { image: string }).image = 'busybox:1';
    expect(isPubPodStateConsistent(updating, hash)).toBe(false);
    (updating.status!.containerStatuses![0] as { imageID: string }).imageID =
      'docker.io/library/busybox@sha256:new';
    expect(isPubPodStateConsistent(updating, hash)).toBe(true);
    const labelled = pod('busybox:1', 'x', { labels: { 'unavailable-pod.kruise.io/drain': 'true' } });
    expect(isPubPodAvailable(labelled, hash)).toBe(false);
    expect(isPubPodAvailable(pod('busybox:1', 'x'), hash)).toBe(true);
  });

  it('sees a spec change or an unavailable label as a disruption, and a cpu change alone as a resize', () => {
    const a = pod('busybox:1', 'x', { labels: { app: 'web' } });
    const relabelled = structuredClone(a);
    relabelled.metadata!.labels = { app: 'web', extra: '1' };
    expect(podUnavailableChanged(a, relabelled)).toBe(false);
    relabelled.metadata!.labels['unavailable-pod.kruise.io/x'] = '1';
    expect(podUnavailableChanged(a, relabelled)).toBe(true);
    const image = structuredClone(a);
    image.spec!.containers[0]!.image = 'busybox:2';
    expect(podUnavailableChanged(a, image)).toBe(true);
    expect(canResizeInPlace(a, image)).toBe(false);
    const withCpu = structuredClone(a);
    withCpu.spec!.containers[0]!.resources = { requests: { cpu: '100m' } };
    const moreCpu = structuredClone(withCpu);
    moreCpu.spec!.containers[0]!.resources = { requests: { cpu: '200m' } };
    expect(canResizeInPlace(withCpu, moreCpu)).toBe(true);
    const restart = structuredClone(moreCpu);
    restart.spec!.containers[0]!.resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }];
    const restartBase = structuredClone(withCpu);
    restartBase.spec!.containers[0]!.resizePolicy = restart.spec!.containers[0]!.resizePolicy;
    expect(canResizeInPlace(restartBase, restart)).toBe(false);
    // BestEffort → Burstable changes the QoS class
    expect(canResizeInPlace(a, withCpu)).toBe(false);
  });
});
