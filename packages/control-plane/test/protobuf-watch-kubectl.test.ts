import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import { eventually, rawRequest } from './helpers.ts';
import { KubectlSession } from './kubectl-session.ts';

// `kubectl events --watch` watches through client-go's typed clientset, which asks for protobuf:
// kubectl's own decoder reads the frames this server writes.
describe('protobuf watch (pinned kubectl)', () => {
  let s: KubectlSession;
  beforeAll(async () => {
    s = await KubectlSession.start();
  });
  afterAll(() => s?.stop());

  it('prints events that arrive on a protobuf watch stream', async () => {
    const child = spawn(kubectlPath(), ['events', '-n', 'default', '--watch', '-v=8'], { env: s.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    try {
      // -v=8 logs the request's Accept and the response's Content-Type.
      await eventually(() => /Content-Type: .*stream=watch/.test(err), 20_000);
      expect(err).toMatch(/Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
      expect(err).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf;stream=watch\n/);
      const event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'pb-watch-1', namespace: 'default' },
        involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default' },
        reason: 'ProtobufWatched',
        message: 'seen through a protobuf watch',
        type: 'Normal',
        source: { component: 'pb-watch-test' },
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        count: 1,
      };
      const created = await rawRequest(s.cp, 'POST', '/api/v1/namespaces/default/events', {
        body: JSON.stringify(event),
      });
      expect(created.code).toBe(201);
      await eventually(() => out.includes('ProtobufWatched'), 20_000);
      expect(out).toMatch(/Normal\s+ProtobufWatched\s+Pod\/web-0\s+seen through a protobuf watch\n/);
    } finally {
      child.kill();
    }
  }, 60_000);
});
