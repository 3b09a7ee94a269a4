import { splitApiVersion } from '@kruise/runtime';

/**
 * The `kruise-configuration` key naming the custom workloads PersistentPodState (and the controller
 * finder) treat as StatefulSet-like: `{"workloads":[{"Group":"example.com","Kind":"GameSet"}]}`.
 */
export const PPS_WATCH_CUSTOM_WORKLOAD_WHITELIST_KEY = 'PPS_Watch_Custom_Workload_WhiteList';

/** A whitelisted workload kind (upstream's schema.GroupVersionKind; the version is not compared). */
export interface WhitelistedWorkload {
  group: string;
  version: string;
  kind: string;
}

/** The custom workloads of {@link PPS_WATCH_CUSTOM_WORKLOAD_WHITELIST_KEY}. */
export interface CustomWorkloadWhitelist {
  workloads: WhitelistedWorkload[];
}

/** Go's name for a JSON value's type in an unmarshal error. */
const jsonType = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** The value of the field `name` of a Go struct, whose JSON keys match case-insensitively (the last one wins). */
function field(obj: Record<string, unknown>, name: string): unknown {
  let value: unknown;
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === name) value = v;
  return value;
}

function stringField(obj: Record<string, unknown>, name: string, where: string): string {
  const v = field(obj, name.toLowerCase());
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string')
    throw new Error(
      `json: cannot unmarshal ${jsonType(v)} into Go struct field ${where}.${name} of type string`,
    );
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The whitelist a `kruise-configuration` value holds, decoded as Go's encoding/json decodes it
 * (keys case-insensitive, unknown keys ignored, null as absent); an absent value is an empty list.
 * @throws Error when the value is not JSON or a field has the wrong type (upstream's finder then fails).
 */
export function parseCustomWorkloadWhitelist(value: string | undefined): CustomWorkloadWhitelist {
  if (value === undefined) return { workloads: [] };
  const parsed: unknown = JSON.parse(value);
  if (parsed === null) return { workloads: [] };
  if (!isObject(parsed))
    throw new Error(
      `json: cannot unmarshal ${jsonType(parsed)} into Go value of type CustomWorkloadWhiteList`,
    );
  const list = field(parsed, 'workloads');
  if (list === undefined || list === null) return { workloads: [] };
  if (!Array.isArray(list))
    throw new Error(
      `json: cannot unmarshal ${jsonType(list)} into Go struct field CustomWorkloadWhiteList.workloads of type []schema.GroupVersionKind`,
    );
  const where = 'CustomWorkloadWhiteList.workloads';
  return {
    workloads: list.map((item) => {
      if (item === null) return { group: '', version: '', kind: '' };
      if (!isObject(item))
        throw new Error(
          `json: cannot unmarshal ${jsonType(item)} into Go struct field ${where} of type schema.GroupVersionKind`,
        );
      return {
        group: stringField(item, 'Group', where),
        version: stringField(item, 'Version', where),
        kind: stringField(item, 'Kind', where),
      };
    }),
  };
}

/**
 * Upstream's ValidateAPIVersionAndKind: whether a workload of this apiVersion and kind is
 * StatefulSet-like — a StatefulSet of apps or apps.kruise.io, or a kind whose group and kind the
 * whitelist names (any version). An apiVersion with more than one slash is none.
 */
export function isStatefulSetLike(
  whitelist: CustomWorkloadWhitelist,
  apiVersion: string,
  kind: string,
): boolean {
  const gv = splitApiVersion(apiVersion);
  if (!gv) return false;
  if ((gv.group === 'apps' || gv.group === 'apps.kruise.io') && kind === 'StatefulSet') return true;
  return whitelist.workloads.some((w) => w.group === gv.group && w.kind === kind);
}
