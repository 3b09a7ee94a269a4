/** Who is asking. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  /** Further facts the authenticator attached (a bound token's pod, node, credential id). */
  extra?: Record<string, string[]>;
}

/** What an authorizer decides on. */
export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Set for non-resource requests (`/healthz`, `/version`, …). */
  path?: string;
}
