import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

const CODE_NAMES = Object.fromEntries(
  Object.entries(GrpcStatus)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v, k]),
) as Record<number, string>;

/** A failed CRI call: the gRPC code (name and number), the method, and the runtime's own message. */
export class CriError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly method: string;
  /** The runtime's message without gRPC's prefix. */
  readonly details: string;

  constructor(method: string, err: ServiceError) {
    const codeName = CODE_NAMES[err.code] ?? String(err.code);
    super(`rpc error: code = ${codeName} desc = ${err.details || err.message}`);
    this.name = 'CriError';
    this.code = err.code;
    this.codeName = codeName;
    this.method = method;
    this.details = err.details || err.message;
  }
}

/** Whether a CRI error is NOT_FOUND. */
export const isCriNotFound = (err: unknown) => err instanceof CriError && err.code === GrpcStatus.NOT_FOUND;
