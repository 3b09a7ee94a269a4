import { goStructCodec } from '@kruise/kube-compat/go-struct-codec';
import { KRUISE_GO_STRUCTS } from './go-types-kruise.ts';

/** Go's JSON round trip through core/v1 and Kruise's own structs (the codec itself is kube-compat's). */
const codec = goStructCodec(KRUISE_GO_STRUCTS);

/** kube-compat's `encodeStruct` over core/v1 and Kruise's structs. */
export const encodeStruct = codec.encodeStruct;
/** kube-compat's `goDecodeError` over core/v1 and Kruise's structs. */
export const goDecodeError = codec.goDecodeError;
