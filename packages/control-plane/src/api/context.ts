import type { UserInfo } from '../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';

/** Options that shape one write. */
export interface WriteOptions {
  user: UserInfo;
  dryRun?: boolean;
  /** `Strict`, `Warn` (default) or `Ignore`, as `?fieldValidation=`. */
  fieldValidation?: string;
  subresource?: string;
  /** Warnings to send back as `Warning` headers. */
  warnings?: string[];
  /** Who makes an ordinary write (`?fieldManager=` or the User-Agent), recorded in `managedFields`. */
  fieldManager?: string;
  /** Set for server-side apply, which records `managedFields` itself. */
  apply?: boolean;
}

/** An admission hook run before a write is committed (webhooks). */
export type AdmissionHook = (request: {
  type: ResourceType;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  subresource: string;
  namespace: string;
  name: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  options: WriteOptions;
  phase: 'mutating' | 'validating';
  /** The kind of the object sent, when a subresource takes another kind (pods/eviction: policy/v1 Eviction). */
  kind?: { group: string; version: string; kind: string };
}) => Promise<KubeObject | undefined>;

/** Characters kube-apiserver uses for generateName suffixes. */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` plus five random characters. */
export function generatedName(prefix: string): string {
  let s = prefix;
  for (let i = 0; i < 5; i++) s += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return s;
}

let lastSecond = -1;
let lastText = '';

/** RFC 3339 time with second precision, as Kubernetes writes metav1.Time (formatted once a second). */
export function nowRFC3339(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastText;
}
