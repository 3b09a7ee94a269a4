import { parseFeatureGates } from '@kruise/api';
import type { AdmissionRequest } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import {
  apiPubLookups,
  NO_PUB_LOOKUPS,
  type PubAdmissionLookups,
  validatePodUnavailableBudget,
} from '../../src/webhooks/podunavailablebudget/validating.ts';
import { budget, fixedBudgets, type Obj, pubRequest } from './pub-requests.ts';

/**
 * The PodUnavailableBudget validating webhook called directly: the gates, decoding, the annotation,
 * spec and update rules, the conflicts with other budgets, each answer in upstream's words.
 */

const DEFAULT_GATES = parseFeatureGates('');
const OPS = 'kruise.io/pub-protect-operations';
const TOTAL = 'pub.kruise.io/protect-total-replicas';
const BAD_OPS = `metadata: Internal error: annotation[${OPS}] is invalid`;
const BAD_TOTAL = `metadata: Internal error: annotation[${TOTAL}] is invalid`;
const NO_PICK =
  'spec.selector, targetRef: Required value: no selector or targetRef defined in PodUnavailableBudget';
const NO_BUDGET =
  'spec.maxUnavailable, minAvailable: Required value: no maxUnavailable or minAvailable defined in PodUnavailableBudget';
const NIL_SELECTOR =
  'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}';
const WEB_SELECTOR =
  'v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}';
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });
const goRef = (apiVersion: string, kind: string, name: string) =>
  `v1alpha1.TargetReference{APIVersion:"${apiVersion}", Kind:"${kind}", Name:"${name}"}`;

/** The handler's answer to a request: `ok`, or the denial's code and message. */
async function answer(
  request: AdmissionRequest,
  lookups: PubAdmissionLookups = fixedBudgets([]),
  gates = DEFAULT_GATES,
): Promise<string> {
  const r = await validatePodUnavailableBudget(gates, lookups)(request);
  return r.allowed ? 'ok' : `${r.status?.code} ${r.status?.message}`;
}
const create = (obj: unknown, lookups?: PubAdmissionLookups) => answer(pubRequest('CREATE', obj), lookups);
const update = (obj: unknown, old: unknown, lookups?: PubAdmissionLookups) =>
  answer(pubRequest('UPDATE', obj, old), lookups);
const withSpec = (spec: Obj) => budget('pub', spec);

describe('PodUnavailableBudget validating webhook: gates and decoding', () => {
  it('allows a valid budget by selector or by targetRef, with either PUB gate on', async () => {
    expect(await create(budget('pub'))).toBe('ok');
    expect(
      await create(withSpec({ targetRef: ref('apps/v1', 'Deployment', 'web'), minAvailable: '50%' })),
    ).toBe('ok');
    const updateOnly = parseFeatureGates(
      'PodUnavailableBudgetDeleteGate=false,PodUnavailableBudgetUpdateGate=true',
    );
    expect(await answer(pubRequest('CREATE', budget('pub')), fixedBudgets([]), updateOnly)).toBe('ok');
  });

  it('refuses every request with 400 while both PUB gates are off (PodWebhook=false turns both off)', async () => {
    const off = `400 feature PodUnavailableBudget is invalid, please open via feature-gate(PodUnavailableBudgetDeleteGate, PodUnavailableBudgetUpdateGate)`;
    for (const gates of ['PodUnavailableBudgetDeleteGate=false', 'PodWebhook=false'])
      expect(
        await answer(pubRequest('CREATE', budget('pub')), fixedBudgets([]), parseFeatureGates(gates)),
      ).toBe(off);
  });

  it("answers an object Go cannot decode with 400 and the decoder's words, before any rule", async () => {
    expect(await create(null)).toBe('400 there is no content to decode');
    expect(await create(budget('pub', [1] as never))).toBe(
      '400 json: cannot unmarshal array into Go struct field PodUnavailableBudget.spec of type v1alpha1.PodUnavailableBudgetSpec',
    );
    expect(await create(withSpec({ selector: 'app=web', maxUnavailable: 1 }))).toMatch(
      /^400 json: cannot unmarshal string into Go struct field PodUnavailableBudget\.spec\.selector of type /,
    );
    expect(await create(budget('pub', undefined, { annotations: { [OPS]: 3 } }))).toBe(
      '400 json: cannot unmarshal number 3 into Go struct field ObjectMeta.metadata.annotations of type string',
    );
    expect(await update(budget('pub'), 'not a budget')).toBe('400 there is no content to decode');
  });
});

describe('PodUnavailableBudget validating webhook: annotations', () => {
  const annotated = (annotations: Obj) => budget('pub', undefined, { annotations });

  it('accepts protected operations among UPDATE, DELETE, EVICT, RESIZE and an int32 replica count', async () => {
    expect(await create(annotated({ [OPS]: 'UPDATE,DELETE,EVICT,RESIZE', [TOTAL]: '-2147483648' }))).toBe(
      'ok',
    );
    expect(await create(annotated({ [TOTAL]: '+007' }))).toBe('ok');
  });

  it('refuses any other operation once, however many are wrong (the aggregate drops repeats)', async () => {
    expect(await create(annotated({ [OPS]: 'DELETE,delete,SCALE' }))).toBe(`400 ${BAD_OPS}`);
    // An empty value splits into one empty operation; a space is not trimmed.
    expect(await create(annotated({ [OPS]: '' }))).toBe(`400 ${BAD_OPS}`);
    expect(await create(annotated({ [OPS]: 'DELETE, EVICT' }))).toBe(`400 ${BAD_OPS}`);
    expect(await create(annotated({ [OPS]: null }))).toBe(`400 ${BAD_OPS}`);
  });

  it('refuses a replica count strconv.ParseInt(v, 10, 32) cannot read, next to the other errors', async () => {
    for (const total of ['', 'ten', '2147483648', '1.5', ' 3'])
      expect(await create(annotated({ [TOTAL]: total }))).toBe(`400 ${BAD_TOTAL}`);
    expect(await create({ ...annotated({ [OPS]: 'x', [TOTAL]: 'y' }), spec: {} })).toBe(
      `400 [${BAD_OPS}, ${BAD_TOTAL}, ${NO_PICK}, ${NO_BUDGET}]`,
    );
  });
});

describe('PodUnavailableBudget validating webhook: spec', () => {
  it('wants a selector or a targetRef, and a maxUnavailable or a minAvailable, one of each', async () => {
    expect(await create({ metadata: { name: 'pub' } })).toBe(`400 [${NO_PICK}, ${NO_BUDGET}]`);
    expect(await create(withSpec({ selector: null, targetRef: null, maxUnavailable: null }))).toBe(
      `400 [${NO_PICK}, ${NO_BUDGET}]`,
    );
    expect(
      await create(
        withSpec({
          selector: { matchLabels: { app: 'web' } },
          targetRef: ref('apps/v1', 'Deployment', 'web'),
          maxUnavailable: 1,
          minAvailable: 1,
        }),
      ),
    ).toBe(
      '400 [spec.selector, targetRef: Required value: selector and targetRef are mutually exclusive, ' +
        'spec.maxUnavailable, minAvailable: Required value: maxUnavailable and minAvailable are mutually exclusive]',
    );
  });

  it('refuses a targetRef missing a field, or whose apiVersion is no group version', async () => {
    expect(await create(withSpec({ targetRef: {}, maxUnavailable: 1 }))).toBe(
      `400 spec.TargetReference: Invalid value: ${goRef('', '', '')}: empty TargetReference is not valid for PodUnavailableBudget.`,
    );
    expect(
      await create(withSpec({ targetRef: { kind: 'Deployment', name: 'web' }, maxUnavailable: 1 })),
    ).toBe(
      `400 spec.TargetReference: Invalid value: ${goRef('', 'Deployment', 'web')}: empty TargetReference is not valid for PodUnavailableBudget.`,
    );
    expect(await create(withSpec({ targetRef: ref('a/b/c', 'Deployment', 'web'), maxUnavailable: 1 }))).toBe(
      `400 spec.TargetReference: Invalid value: ${goRef('a/b/c', 'Deployment', 'web')}: unexpected GroupVersion string: a/b/c`,
    );
    expect(await create(withSpec({ targetRef: ref('a/b/c', '', 'web'), maxUnavailable: 1 }))).toBe(
      `400 [spec.TargetReference: Invalid value: ${goRef('a/b/c', '', 'web')}: empty TargetReference is not valid for PodUnavailableBudget., ` +
        `spec.TargetReference: Invalid value: ${goRef('a/b/c', '', 'web')}: unexpected GroupVersion string: a/b/c]`,
    );
  });

  it('refuses an empty selector and one apimachinery refuses, printing the selector as Go does', async () => {
    expect(await create(withSpec({ selector: {}, maxUnavailable: 1 }))).toBe(
      `400 spec.selector: Invalid value: ${NIL_SELECTOR}: empty selector is not valid for PodUnavailableBudget.`,
    );
    expect(
      await create(withSpec({ selector: { matchLabels: {}, matchExpressions: [] }, maxUnavailable: 1 })),
    ).toBe(
      '400 spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement{}}: empty selector is not valid for PodUnavailableBudget.',
    );
    const bad = { matchExpressions: [{ key: 'app', operator: 'Maybe', values: ['web'] }] };
    expect(await create(withSpec({ selector: bad, maxUnavailable: 1 }))).toBe(
      '400 [spec.selector.matchExpressions[0].operator: Invalid value: "Maybe": not a valid selector operator, ' +
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Maybe", Values:[]string{"web"}}}}]',
    );
    const noValues = { matchExpressions: [{ key: 'app', operator: 'In', values: null }] };
    expect(await create(withSpec({ selector: noValues, maxUnavailable: 1 }))).toBe(
      "400 [spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', " +
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", Values:[]string(nil)}}}]',
    );
  });

  it('checks the budget as apps validation checks an IntOrString percentage', async () => {
    const at = (spec: Obj) => create(withSpec({ selector: { matchLabels: { app: 'web' } }, ...spec }));
    expect(await at({ maxUnavailable: 0 })).toBe('ok');
    expect(await at({ minAvailable: '100%' })).toBe('ok');
    expect(await at({ maxUnavailable: -1 })).toBe(
      '400 spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(await at({ maxUnavailable: '120%' })).toBe(
      '400 spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    );
    expect(await at({ minAvailable: '2' })).toBe(
      `400 spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"2"}: ${PERCENT_MSG}`,
    );
  });
});

describe('PodUnavailableBudget validating webhook: updates', () => {
  const CHANGED = '400 spec.selector, targetRef: Required value: selector and targetRef cannot be modified';

  it('allows changing the budget but not the pods it picks', async () => {
    expect(
      await update(
        withSpec({ selector: { matchLabels: { app: 'web' } }, maxUnavailable: '30%' }),
        budget('pub'),
      ),
    ).toBe('ok');
    expect(
      await update(withSpec({ selector: { matchLabels: { app: 'api' } }, maxUnavailable: 1 }), budget('pub')),
    ).toBe(CHANGED);
    const byRef = (name: string) =>
      withSpec({ targetRef: ref('apps/v1', 'Deployment', name), maxUnavailable: 1 });
    expect(await update(byRef('web'), byRef('web'))).toBe('ok');
    expect(await update(byRef('api'), byRef('web'))).toBe(CHANGED);
    expect(await update(byRef('web'), budget('pub'))).toBe(CHANGED);
  });

  it("compares as Go's DeepEqual does after decoding: null is absent, {} is not, unknown fields are gone", async () => {
    const sel = (selector: Obj) => withSpec({ selector, maxUnavailable: 1 });
    expect(await update(sel({ matchLabels: { app: 'web' }, matchExpressions: null }), budget('pub'))).toBe(
      'ok',
    );
    expect(await update(sel({ matchLabels: { app: 'web' }, extra: 1 }), budget('pub'))).toBe('ok');
    expect(await update(sel({ matchLabels: { app: 'web' }, matchExpressions: [] }), budget('pub'))).toBe(
      CHANGED,
    );
    const byRef = (targetRef: Obj) => withSpec({ targetRef, maxUnavailable: 1 });
    expect(
      await update(
        byRef({ kind: 'Deployment', name: 'web', apiVersion: '' }),
        byRef({ name: 'web', kind: 'Deployment' }),
      ),
    ).toBe(
      `400 spec.TargetReference: Invalid value: ${goRef('', 'Deployment', 'web')}: empty TargetReference is not valid for PodUnavailableBudget.`,
    );
  });
});

describe('PodUnavailableBudget validating webhook: other budgets of the namespace', () => {
  const byRef = (name: string, apiVersion: string, kind: string, target: string) =>
    budget(name, { targetRef: ref(apiVersion, kind, target), maxUnavailable: 1 });
  const bySelector = (name: string, selector: Obj) => budget(name, { selector, maxUnavailable: 1 });

  it('refuses naming the workload another budget names, whatever the version', async () => {
    const lookups = fixedBudgets([byRef('other', 'apps/v1beta1', 'Deployment', 'web')]);
    expect(await create(byRef('pub', 'apps/v1', 'Deployment', 'web'), lookups)).toBe(
      `400 spec.targetReference: Invalid value: ${goRef('apps/v1', 'Deployment', 'web')}: pub.spec.targetReference is in conflict with other PodUnavailableBudget other`,
    );
    for (const [apiVersion, kind, target] of [
      ['apps.kruise.io/v1alpha1', 'Deployment', 'web'],
      ['apps/v1', 'StatefulSet', 'web'],
      ['apps/v1', 'Deployment', 'api'],
    ] as const)
      expect(await create(byRef('pub', apiVersion, kind, target), lookups)).toBe('ok');
    // Itself (an update) is no other budget.
    expect(await create(byRef('other', 'apps/v1', 'Deployment', 'web'), lookups)).toBe('ok');
  });

  it('refuses a selector loosely overlapping another budget’s, naming the first such budget only', async () => {
    const lookups = fixedBudgets([
      bySelector('apart', { matchLabels: { tier: 'front' } }),
      bySelector('first', { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }),
      bySelector('second', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }),
    ]);
    expect(await create(budget('pub'), lookups)).toBe(
      `400 spec.selector: Invalid value: ${WEB_SELECTOR}: pub.spec.selector is in conflict with other PodUnavailableBudget first`,
    );
    // Not the same keys: no loose overlap (though the two may pick the same pods).
    expect(await create(bySelector('pub', { matchLabels: { app: 'web', tier: 'front' } }), lookups)).toBe(
      'ok',
    );
    expect(
      await create(
        bySelector('pub', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }),
        lookups,
      ),
    ).toBe('ok');
  });

  it('does not compare a targetRef with a selector, nor read a malformed stored budget as a conflict', async () => {
    const lookups = fixedBudgets([
      byRef('ref', 'apps/v1', 'Deployment', 'web'),
      { metadata: { name: 'bare' } },
      { metadata: { name: 'odd' }, spec: { selector: 'app=web', targetRef: [1] } },
    ]);
    expect(await create(budget('pub'), lookups)).toBe('ok');
    expect(await create(byRef('pub', 'apps/v2', 'Deployment', 'api'), lookups)).toBe('ok');
  });

  it("lists the object's namespace (the request's when the object names none), after the other rules", async () => {
    const lookups = fixedBudgets([bySelector('first', { matchLabels: { app: 'web' } })]);
    expect(await create(budget('pub', undefined, { namespace: 'team' }), lookups)).toMatch(
      /other PodUnavailableBudget first$/,
    );
    expect(await create({ metadata: { name: 'pub' }, spec: budget('pub').spec }, lookups)).toMatch(/first$/);
    expect(lookups.asked).toEqual(['team', 'default']);
    expect(
      await create(withSpec({ selector: { matchLabels: { app: 'web' } }, maxUnavailable: -1 }), lookups),
    ).toBe(
      '400 [spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0, ' +
        `spec.selector: Invalid value: ${WEB_SELECTOR}: pub.spec.selector is in conflict with other PodUnavailableBudget first]`,
    );
  });

  it('joins a failed list to the other errors as an InternalError at the empty path', async () => {
    expect(await create(budget('pub'), fixedBudgets([], 'connection refused'))).toBe(
      '400 : Internal error: query other podUnavailableBudget failed, err: connection refused',
    );
    expect(await create(withSpec({ selector: { matchLabels: { app: 'web' } } }), NO_PUB_LOOKUPS)).toBe(
      `400 [${NO_BUDGET}, : Internal error: query other podUnavailableBudget failed, err: no API access]`,
    );
  });

  it('reads the budgets of the namespace from the API', async () => {
    const seen: unknown[] = [];
    const client = {
      listAll: async (resource: unknown, options: unknown) => {
        seen.push(resource, options);
        return { items: [bySelector('other', { matchLabels: { app: 'web' } })] };
      },
    };
    const lookups = apiPubLookups(client as never);
    expect((await lookups.budgets('team')).map((b) => b.metadata?.name)).toEqual(['other']);
    expect(seen).toMatchObject([
      { group: 'policy.kruise.io', plural: 'podunavailablebudgets' },
      { namespace: 'team' },
    ]);
  });
});
