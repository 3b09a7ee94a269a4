import { Client, credentials, status as GrpcStatus, Metadata, type ServiceError } from '@grpc/grpc-js';

/** grpc.health.v1 HealthCheckResponse.ServingStatus names. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** HealthCheckRequest{service} as protobuf bytes (field 1, length-delimited). */
function encodeRequest(service: string): Buffer {
  const s = Buffer.from(service, 'utf8');
  if (s.length === 0) return Buffer.alloc(0);
  const len: number[] = [];
  let n = s.length;
  while (n > 0x7f) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  return Buffer.concat([Buffer.from([0x0a, ...len]), s]);
}

/** HealthCheckResponse.status (field 1, varint); 0 when absent. */
function decodeStatus(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const tag = buf[i++]!;
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++]!;
      v |= (b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    if (tag === 0x08) return v;
    if ((tag & 7) === 2) i += v; // a length-delimited field we do not know
  }
  return 0;
}

/**
 * kubelet's gRPC probe (pkg/probe/grpc): `grpc.health.v1.Health/Check` on `host:port` for `service`
 * within `timeoutMs`, with kubelet's result wording.
 */
export async function grpcHealthCheck(
  host: string,
  port: number,
  service: string,
  timeoutMs: number,
): Promise<{ ok: boolean; output: string }> {
  const addr = `${host}:${port}`;
  const client = new Client(addr, credentials.createInsecure());
  const deadline = Date.now() + timeoutMs;
  const seconds = `${timeoutMs / 1000}s`;
  try {
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(deadline, (e) => (e ? reject(e) : resolve())),
    );
  } catch (err) {
    client.close();
    return {
      ok: false,
      output: `timeout: failed to connect service "${addr}" within ${seconds}: ${(err as Error).message}`,
    };
  }
  try {
    const status = await new Promise<number>((resolve, reject) =>
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (s: string) => encodeRequest(s),
        decodeStatus,
        service,
        new Metadata(),
        { deadline },
        (err, value) => (err ? reject(err) : resolve(value ?? 0)),
      ),
    );
    if (status === 1) return { ok: true, output: 'service healthy' };
    return { ok: false, output: `service unhealthy (responded with "${SERVING_STATUS[status] ?? status}")` };
  } catch (err) {
    const e = err as ServiceError;
    if (e.code === GrpcStatus.UNIMPLEMENTED)
      return {
        ok: false,
        output: `this server does not implement the grpc health protocol (grpc.health.v1.Health): ${e.details}`,
      };
    if (e.code === GrpcStatus.DEADLINE_EXCEEDED)
      return { ok: false, output: `timeout: health rpc did not complete within ${seconds}` };
    return { ok: false, output: `error: health rpc probe failed: ${e.message}` };
  } finally {
    client.close();
  }
}
