import { parseFeatureGates } from '@kruise/api';
import { describe, expect, it } from 'vitest';
import {
  defaulted,
  denial,
  fixedLookups,
  type Obj,
  request,
  sidecarSet,
  validator,
} from './admission-helpers.ts';

/**
 * The SidecarSet's validating webhook (vsidecarset.kb.io) called as the API server calls it, after
 * the defaulting webhook: every denial of upstream's handler with its field path and words, as a
 * 500 (upstream answers field errors with an internal error), and 400 for what it cannot decode.
 */

const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const NAME_MSG =
  "sidecarset name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')";
const EMPTY_SELECTOR =
  'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}';
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const revision = (name: string, labels: Record<string, string>) => ({ metadata: { name, labels } });
const lookups = fixedLookups({
  revisions: [
    revision('pinned-abc', { 'kruise.io/sidecarset-name': 'pinned' }),
    revision('pinned-def', {
      'kruise.io/sidecarset-name': 'pinned',
      'apps.kruise.io/sidecarset-custom-version': 'v2',
    }),
  ],
});
const validate = validator(lookups);

/** A SidecarSet as the API server hands it to the validating webhook: defaulted. */
const create = async (name: string, spec: Obj = {}, meta: Obj = {}) =>
  request('CREATE', await defaulted(request('CREATE', sidecarSet(name, spec, meta))));

const withContainer = (extra: Obj) => ({
  containers: [{ name: 'sidecar', image: 'busybox:1.36', ...extra }],
});
const policy = (extra: Obj = {}) => ({
  targetContainersMode: 'sum',
  targetContainersNameRegex: '.*',
  resourcesExpr: { limits: { cpu: 'cpu * 50%' } },
  ...extra,
});

describe('SidecarSet validation (vsidecarset.kb.io)', () => {
  it('admits a valid SidecarSet at both versions', async () => {
    expect((await validate(await create('ok'))).allowed).toBe(true);
    const alpha = sidecarSet('ok', { namespace: 'team-a' }, {}, 'apps.kruise.io/v1alpha1');
    const r = await validate(
      request(
        'CREATE',
        await defaulted(request('CREATE', alpha, undefined, 'v1alpha1')),
        undefined,
        'v1alpha1',
      ),
    );
    expect(r.allowed).toBe(true);
  });

  it.each<[string, () => Promise<ReturnType<typeof request>>, string]>([
    [
      'a name with other characters',
      () => create('bad_name'),
      `metadata.name: Invalid value: "bad_name": ${NAME_MSG}`,
    ],
    [
      'a name longer than 63',
      () => create('a'.repeat(64)),
      `metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    ],
    [
      'a namespace',
      () => create('ns', {}, { namespace: 'default' }),
      'metadata.namespace: Forbidden: not allowed on this type',
    ],
    [
      'no selector',
      () => create('nosel', { selector: undefined }),
      'spec.selector: Required value: no selector defined for SidecarSet',
    ],
    [
      'an empty selector',
      () => create('emptysel', { selector: {} }),
      `spec.selector: Invalid value: ${EMPTY_SELECTOR}: empty selector is not valid for sidecarset.`,
    ],
    [
      'a selector operator that does not exist',
      () => create('op', { selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }),
      '[spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator, spec.selector.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"Near", Values:[]string(nil)}}}]',
    ],
    [
      'an empty namespaceSelector',
      () => create('emptyns', { namespaceSelector: {} }),
      `spec.namespaceSelector: Invalid value: ${EMPTY_SELECTOR}: empty selector is not valid for sidecarset.`,
    ],
    [
      'an injection revision naming nothing',
      () => create('rev', { injectionStrategy: { revision: {} } }),
      'revision: Invalid value: v1beta1.SidecarSetInjectRevision{CustomVersion:(*string)(nil), RevisionName:(*string)(nil), Policy:"Always"}: revisionName and customVersion cannot be empty simultaneously',
    ],
    [
      'a revisionName that does not exist',
      () => create('pinned', { injectionStrategy: { revision: { revisionName: 'pinned-zzz' } } }),
      'revision: Invalid value: null: Cannot find specific ControllerRevision, err: controllerrevisions.apps "pinned-zzz" not found',
    ],
    [
      'a customVersion no revision has',
      () => create('pinned', { injectionStrategy: { revision: { customVersion: 'v9' } } }),
      'revision: Invalid value: null: Cannot find specific ControllerRevision, err: ControllerRevision.apps "pinned" not found',
    ],
    [
      'an injection policy that does not exist',
      () =>
        create('pinned', {
          injectionStrategy: { revision: { revisionName: 'pinned-abc', policy: 'Sometimes' } },
        }),
      'revision.policy: Invalid value: v1beta1.SidecarSetInjectRevision{CustomVersion:(*string)(nil), RevisionName:(*string)(0xc000a1c000), Policy:"Sometimes"}: Invalid policy Sometimes, supported: [Always, Partial]',
    ],
    [
      'a partition with an update selector',
      () => create('ps', { updateStrategy: { partition: 1, selector: { matchLabels: { canary: 'true' } } } }),
      'updateStrategy: Invalid value: "&{Type:RollingUpdate Paused:false Selector:&LabelSelector{MatchLabels:map[string]string{canary: true,},MatchExpressions:[]LabelSelectorRequirement{},} Partition:1 MaxUnavailable:1 PriorityStrategy:<nil> ScatterStrategy:[]}": Partition and Selector cannot be used together',
    ],
    [
      'a partition with an update selector, beside a priority strategy',
      () =>
        create('ps2', {
          updateStrategy: {
            partition: '10%',
            selector: { matchExpressions: [{ key: 'canary', operator: 'In', values: ['a', 'b'] }] },
            priorityStrategy: { orderPriority: [{ orderedKey: 'k' }] },
            scatterStrategy: [{ key: 'zone', value: 'a' }],
          },
        }),
      'updateStrategy: Invalid value: "&{Type:RollingUpdate Paused:false Selector:&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:canary,Operator:In,Values:[a b],},},} Partition:10% MaxUnavailable:1 PriorityStrategy:0xc000a1c000 ScatterStrategy:[{Key:zone Value:a}]}": Partition and Selector cannot be used together',
    ],
    [
      'an empty update selector',
      () => create('us', { updateStrategy: { selector: {} } }),
      `spec.updateStrategy.selector: Invalid value: ${EMPTY_SELECTOR}: empty selector is not valid for sidecarset.`,
    ],
    [
      'a partition that is not a percent',
      () => create('pp', { updateStrategy: { partition: 'half' } }),
      `spec.updateStrategy.partition: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: ${PERCENT_MSG}`,
    ],
    [
      'a negative maxUnavailable',
      () => create('mu', { updateStrategy: { maxUnavailable: -1 } }),
      'spec.updateStrategy.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'weight and order priorities together',
      () =>
        create('prio', {
          updateStrategy: {
            priorityStrategy: {
              weightPriority: [{ weight: 50, matchSelector: { matchLabels: { a: 'b' } } }],
              orderPriority: [{ orderedKey: 'k' }],
            },
          },
        }),
      'spec.updateStrategy.priorityStrategy: Required value: only one of weightPriority and orderPriority can be used',
    ],
    [
      'a scatter term without a key',
      () => create('sc', { updateStrategy: { scatterStrategy: [{ key: '', value: 'a' }] } }),
      'spec.updateStrategy.scatterStrategy: Required value: key should not be empty',
    ],
    [
      'a scatter term twice',
      () =>
        create('sc2', {
          updateStrategy: {
            scatterStrategy: [
              { key: 'zone', value: 'a' },
              { key: 'zone', value: 'a' },
            ],
          },
        }),
      'spec.updateStrategy.scatterStrategy: Required value: duplicated key=zone value=a',
    ],
    [
      'no container at all',
      () => create('empty', { containers: [] }),
      'spec: Required value: no initContainer or container defined for SidecarSet',
    ],
    [
      'an inject policy that does not exist',
      () => create('ip', withContainer({ podInjectPolicy: 'Middle' })),
      'spec.container.podInjectPolicy: Invalid value: "Middle": unsupported pod inject policy',
    ],
    [
      'a share volume policy that does not exist',
      () => create('sv', withContainer({ shareVolumePolicy: { type: 'maybe' } })),
      'spec.container.shareVolumePolicy: Invalid value: v1beta1.ShareVolumePolicy{Type:"maybe"}: unsupported share volume policy',
    ],
    [
      'a transferEnv field that is not a label or annotation',
      () =>
        create(
          'te',
          withContainer({
            transferEnv: [
              { envName: 'X', sourceContainerNameFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
          }),
        ),
      'spec[0].transferEnv.fieldRef.fieldPath: Invalid value: "metadata.name": error converting fieldPath: field label not supported: metadata.name',
    ],
    [
      'a transferEnv subscript on another field',
      () =>
        create(
          'te2',
          withContainer({
            transferEnv: [
              { envName: 'X', sourceContainerNameFrom: { fieldRef: { fieldPath: "spec['a']" } } },
            ],
          }),
        ),
      `spec[0].transferEnv.fieldRef.fieldPath: Invalid value: "spec['a']": error converting fieldPath: field path not supported: spec`,
    ],
    [
      'a transferEnv label key that is not a qualified name',
      () =>
        create(
          'te3',
          withContainer({
            transferEnv: [
              {
                envName: 'X',
                sourceContainerNameFrom: { fieldRef: { fieldPath: "metadata.labels['a b']" } },
              },
            ],
          }),
        ),
      `spec[0].transferEnv.fieldRef: Invalid value: "a b": ${NAME_PART_MSG}`,
    ],
    [
      'a transferEnv field of another API version',
      () =>
        create(
          'te4',
          withContainer({
            transferEnv: [
              {
                envName: 'X',
                sourceContainerNameFrom: {
                  fieldRef: { apiVersion: 'v2', fieldPath: "metadata.labels['a']" },
                },
              },
            ],
          }),
        ),
      `spec[0].transferEnv.fieldRef.fieldPath: Invalid value: "metadata.labels['a']": error converting fieldPath: unsupported pod version: v2`,
    ],
    [
      'resourcesPolicy beside resources',
      () => create('rp', withContainer({ resources: { limits: { cpu: '1' } }, resourcesPolicy: policy() })),
      'spec[0].resourcesPolicy: Invalid value: v1beta1.ResourcesPolicy{TargetContainersMode:"sum", TargetContainersNameRegex:".*", ResourcesExpr:v1beta1.ResourcesExpr{Limits:(*v1beta1.ResourceExprLimits)(0xc000a1c000), Requests:(*v1beta1.ResourceExprRequests)(nil)}}: resourcesPolicy and resources cannot be configured together',
    ],
    [
      'a resourcesPolicy without a name regex',
      () => create('rp2', withContainer({ resourcesPolicy: policy({ targetContainersNameRegex: '' }) })),
      'spec[0].resourcesPolicy.targetContainersNameRegex: Required value: invalid empty regex',
    ],
    [
      'a resourcesPolicy name regex that does not compile',
      () => create('rp3', withContainer({ resourcesPolicy: policy({ targetContainersNameRegex: 'app-[' }) })),
      'spec[0].resourcesPolicy.targetContainersNameRegex: Invalid value: "app-[": invalid regex pattern: error parsing regexp: missing closing ]: `[`',
    ],
    [
      'a resourcesPolicy without limits or requests',
      () => create('rp4', withContainer({ resourcesPolicy: policy({ resourcesExpr: {} }) })),
      'spec[0].resourcesPolicy.resourcesExpr: Invalid value: v1beta1.ResourcesExpr{Limits:(*v1beta1.ResourceExprLimits)(nil), Requests:(*v1beta1.ResourceExprRequests)(nil)}: at least one of limits or requests must be configured',
    ],
    [
      'a resource expression that does not parse',
      () =>
        create(
          'rp5',
          withContainer({ resourcesPolicy: policy({ resourcesExpr: { requests: { memory: 'memory *' } } }) }),
        ),
      'spec[0].resourcesPolicy.resourcesExpr.requests.memory: Invalid value: "memory *": invalid expression: parse error: syntax error at line 1, col 9',
    ],
    [
      'a resource expression with the other variable',
      () =>
        create(
          'rp6',
          withContainer({ resourcesPolicy: policy({ resourcesExpr: { limits: { cpu: 'memory + 1' } } }) }),
        ),
      'spec[0].resourcesPolicy.resourcesExpr.limits.cpu: Invalid value: "memory + 1": invalid expression: undefined variable: memory',
    ],
    [
      'a resourcesPolicy on a plain init container',
      () =>
        create('rp7', {
          initContainers: [{ name: 'init', image: 'busybox', resourcesPolicy: policy() }],
        }),
      'spec[0].resourcesPolicy: Invalid value: v1beta1.ResourcesPolicy{TargetContainersMode:"sum", TargetContainersNameRegex:".*", ResourcesExpr:v1beta1.ResourcesExpr{Limits:(*v1beta1.ResourceExprLimits)(0xc000a1c000), Requests:(*v1beta1.ResourceExprRequests)(nil)}}: resourcesPolicy is only supported for containers with RestartPolicy Always',
    ],
    [
      'a container name that is not a DNS label',
      () => create('cn', { containers: [{ name: 'Side_Car', image: 'busybox:1' }] }),
      `spec.containers[0].name: Invalid value: "Side_Car": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
    [
      'a container without an image',
      () => create('ci', { containers: [{ name: 'sidecar' }] }),
      'spec.containers[0].image: Required value',
    ],
    [
      'a mount of a volume it does not have',
      () => create('vm', withContainer({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })),
      'spec.containers[0].volumeMounts[0].name: Not found: "data"',
    ],
    [
      'a patchPodMetadata without annotations',
      () => create('pm', { patchPodMetadata: [{}] }),
      '[spec.patchPodMetadata: Required value: SidecarSet patch metadata whitelist not found, spec.patchPodMetadata: Required value: no annotations defined for SidecarSet]',
    ],
  ])('refuses %s', async (_what, req, message) => {
    expect(await denial(validate, await req())).toEqual({ code: 500, message });
  });

  it('admits a revision pinned by name or customVersion', async () => {
    for (const r of [{ revisionName: 'pinned-abc' }, { customVersion: 'v2', policy: 'Partial' }])
      expect((await validate(await create('pinned', { injectionStrategy: { revision: r } }))).allowed).toBe(
        true,
      );
  });

  it('admits a native sidecar under RollingUpdate (upgraded in place here) and a resourcesPolicy on it', async () => {
    const req = await create('native', {
      initContainers: [
        { name: 'native', image: 'busybox:1', restartPolicy: 'Always', resourcesPolicy: policy() },
      ],
    });
    expect((await validate(req)).allowed).toBe(true);
  });

  it('refuses a hot-upgrade native sidecar under RollingUpdate (nothing could roll it), in upstream’s words', async () => {
    const hot = {
      name: 'native',
      image: 'busybox:1',
      restartPolicy: 'Always',
      upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'busybox:empty' },
    };
    expect(await denial(validate, await create('native-hot', { initContainers: [hot] }))).toEqual({
      code: 500,
      message:
        'spec.updateStrategy: Required value: The initContainer in-place upgrade is not currently supported.',
    });
    const notUpdate = await create('native-hot', {
      initContainers: [hot],
      updateStrategy: { type: 'NotUpdate' },
    });
    expect((await validate(notUpdate)).allowed).toBe(true);
  });

  it('refuses an update changing a container’s upgradeType or adding a container', async () => {
    const old = await defaulted(request('CREATE', sidecarSet('upd')));
    const changed = await defaulted(
      request(
        'UPDATE',
        sidecarSet('upd', {
          containers: [
            { name: 'sidecar', image: 'busybox:1.36', upgradeStrategy: { upgradeType: 'HotUpgrade' } },
            { name: 'extra', image: 'busybox:1.36' },
          ],
        }),
        old,
      ),
    );
    expect(await denial(validate, request('UPDATE', changed, old))).toEqual({
      code: 500,
      message:
        '[spec.containers.upgradeStrategy.upgradeType: Invalid value: "sidecar": container sidecar upgradeType is immutable, spec.containers.name: Invalid value: "extra": container extra is not found]',
    });
    const image = await defaulted(
      request('UPDATE', sidecarSet('upd', { containers: [{ name: 'sidecar', image: 'busybox:1.37' }] }), old),
    );
    expect((await validate(request('UPDATE', image, old))).allowed).toBe(true);
  });

  it('answers 400 to a body it cannot decode, CREATE or UPDATE', async () => {
    const ok = await defaulted(request('CREATE', sidecarSet('x')));
    for (const req of [
      request('CREATE', { ...ok, spec: 'x' }),
      request('CREATE', sidecarSet('x', { volumes: {} })),
      request('UPDATE', ok, { ...ok, spec: { containers: 1 } }),
    ]) {
      const r = await validate(req);
      expect(r.allowed).toBe(false);
      expect(r.status?.code).toBe(400);
      expect(r.status?.message).toMatch(/^json: cannot unmarshal/);
    }
  });

  it('answers 500 naming the failure when the other SidecarSets cannot be listed', async () => {
    const failing = validator({
      ...lookups,
      sidecarSets: () => Promise.reject(new Error('connection refused')),
    });
    expect(await denial(failing, await create('ok'))).toEqual({
      code: 500,
      message: ': Internal error: query other sidecarsets failed, err: connection refused',
    });
  });
});

describe('SidecarSet patchPodMetadata whitelist (kruise-configuration)', () => {
  const configuration = (rules: unknown) => ({
    data: { SidecarSet_PatchPodMetadata_WhiteList: JSON.stringify({ rules }) },
  });
  const withPatch = (labels: Record<string, string> = {}) =>
    create('patch', { patchPodMetadata: [{ annotations: { 'oom.io/score': '1' } }] }, { labels });
  const outcome = async (config: Obj | undefined, labels?: Record<string, string>, gate = '') => {
    const v = validator(fixedLookups({ configuration: config }), parseFeatureGates(gate));
    const r = await v(await withPatch(labels));
    return r.allowed ? 'allowed' : r.status?.message;
  };
  const refused = (why: string) => `spec.patchPodMetadata: Required value: ${why}`;

  it.each<[string, Obj | undefined, Record<string, string> | undefined, string, string]>([
    ['no ConfigMap', undefined, undefined, '', refused('SidecarSet patch metadata whitelist not found')],
    [
      'no ConfigMap, gate on',
      undefined,
      undefined,
      'SidecarSetPatchPodMetadataDefaultsAllowed=true',
      'allowed',
    ],
    [
      'a ConfigMap without the key',
      { data: { other: 'x' } },
      undefined,
      '',
      refused('SidecarSet patch metadata whitelist not found'),
    ],
    [
      'a rule allowing the key',
      configuration([{ allowedAnnotationKeyExprs: ['^oom\\.io/.*'] }]),
      undefined,
      '',
      'allowed',
    ],
    [
      'a rule allowing other keys',
      configuration([{ allowedAnnotationKeyExprs: ['^other\\.io/.*'] }]),
      undefined,
      '',
      refused('sidecarSet patch metadata annotation(oom.io/score) is not allowed'),
    ],
    [
      'a rule for other SidecarSets',
      configuration([{ selector: { matchLabels: { team: 'a' } }, allowedAnnotationKeyExprs: ['.*'] }]),
      { team: 'b' },
      '',
      refused('sidecarSet patch metadata annotation is not allowed'),
    ],
    [
      'a rule for other SidecarSets, gate on',
      configuration([{ selector: { matchLabels: { team: 'a' } }, allowedAnnotationKeyExprs: ['.*'] }]),
      { team: 'b' },
      'SidecarSetPatchPodMetadataDefaultsAllowed=true',
      'allowed',
    ],
    [
      'a rule whose selector cannot be read',
      configuration([
        {
          selector: { matchExpressions: [{ key: 'team', operator: 'Near' }] },
          allowedAnnotationKeyExprs: ['.*'],
        },
      ]),
      undefined,
      '',
      refused('"Near" is not a valid pod selector operator'),
    ],
    [
      'a rule for this SidecarSet’s labels',
      configuration([{ selector: { matchLabels: { team: 'a' } }, allowedAnnotationKeyExprs: ['.*'] }]),
      { team: 'a' },
      '',
      'allowed',
    ],
  ])('%s', async (_what, config, labels, gate, expected) => {
    expect(await outcome(config, labels, gate)).toBe(expected);
  });

  it('refuses a key patched twice, a key that is not an annotation key, and a missing policy', async () => {
    const v = validator(
      fixedLookups({}),
      parseFeatureGates('SidecarSetPatchPodMetadataDefaultsAllowed=true'),
    );
    const req = await create('twice', {
      patchPodMetadata: [{ annotations: { a: '1' } }, { annotations: { a: '2', 'bad key': '3' } }],
    });
    expect(await denial(v, req)).toEqual({
      code: 500,
      message: `[patchPodMetadata.annotations: Invalid value: "bad key": ${NAME_PART_MSG}, spec.patchPodMetadata: Required value: patch annotation[a] already exist]`,
    });
    // (only a request that skipped the defaulting webhook can lack a policy)
    const r = await v(
      request('CREATE', sidecarSet('np', { patchPodMetadata: [{ annotations: { a: '1' } }] })),
    );
    // (its container lacks the defaulted policies as well)
    expect(r.status?.message).toBe(
      '[spec.container.podInjectPolicy: Invalid value: "": unsupported pod inject policy, spec.container.shareVolumePolicy: Invalid value: v1beta1.ShareVolumePolicy{Type:""}: unsupported share volume policy, spec.patchPodMetadata: Required value: no patchPolicy defined for patchPodMetadata]',
    );
  });
});
