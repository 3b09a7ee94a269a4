import type { UpdatePriorityStrategy, UpdateScatterTerm } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The last run of digits of a label value as a number (`sts-10` → 10), 0 when none. */
function trailingInt(v: string): number {
  const m = /(\d+)$/.exec(v);
  return m ? Number(m[1]) : 0;
}

/**
 * Orders update candidates by an update priority strategy (stable): weight terms — the sum of the
 * weights of matching selectors, higher first; order terms — the first key a pod has wins, earlier
 * keys first, larger trailing integer first, and pods with none of the keys before all others.
 */
export function sortByPriority(pods: Pod[], strategy: UpdatePriorityStrategy | undefined): Pod[] {
  const weights = strategy?.weightPriority ?? [];
  const orders = strategy?.orderPriority ?? [];
  if (!weights.length && !orders.length) return pods;
  const key = (p: Pod): [number, number] => {
    const labels = p.metadata?.labels ?? {};
    if (weights.length) {
      let w = 0;
      for (const t of weights) if (labelSelectorMatches(t.matchSelector, labels)) w += t.weight;
      return [-w, 0];
    }
    for (let i = 0; i < orders.length; i++) {
      const v = labels[orders[i]!.orderedKey];
      if (v !== undefined) return [i, -trailingInt(v)];
    }
    return [-1, 0];
  };
  const keyed = pods.map((p, i) => ({ p, i, k: key(p) }));
  keyed.sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.i - b.i);
  return keyed.map((x) => x.p);
}

const matches = (p: Pod, t: UpdateScatterTerm) => p.metadata?.labels?.[t.key] === t.value;

/** Scatter terms in the order they are applied: by how many candidates match, most first. */
function scatterTerms(candidates: Pod[], strategy: UpdateScatterTerm[]): UpdateScatterTerm[] {
  if (strategy.length === 1) return strategy;
  const counts = new Map<string, { term: UpdateScatterTerm; n: number; at: number }>();
  for (const term of strategy)
    for (const p of candidates) {
      if (!matches(p, term)) continue;
      const id = `${term.key}:${term.value}`;
      const c = counts.get(id);
      if (c) c.n++;
      else counts.set(id, { term, n: 1, at: counts.size });
    }
  return [...counts.values()].sort((a, b) => b.n - a.n || a.at - b.at).map((c) => c.term);
}

interface Groups {
  groupNum: number;
  matchedSize: number;
  unmatchedSize: number;
  unmatchedRemainder: number;
}

function groupsOf(matched: number, unmatched: number): Groups {
  const groupNum = Math.min(matched, unmatched);
  return {
    groupNum,
    matchedSize: Math.round(matched / groupNum),
    unmatchedSize: Math.round(unmatched / groupNum),
    unmatchedRemainder: 0,
  };
}

/** Upstream's calculateGroupByDensity: groups sized by the density among all pods or the candidates. */
function groupsByDensity(
  totalMatched: number,
  totalUnmatched: number,
  matched: number,
  unmatched: number,
): Groups {
  const total = groupsOf(totalMatched, totalUnmatched);
  const update = groupsOf(matched, unmatched);
  if (Math.fround(totalUnmatched / totalMatched) >= Math.fround(unmatched / matched)) return update;
  const groupNum = Math.min(
    Math.trunc(matched / total.matchedSize),
    Math.trunc(unmatched / total.unmatchedSize),
  );
  return {
    groupNum,
    matchedSize: total.matchedSize,
    unmatchedSize: total.unmatchedSize,
    unmatchedRemainder: unmatched - groupNum * total.unmatchedSize,
  };
}

function scatterByTerm(term: UpdateScatterTerm, all: Pod[], candidates: Pod[]): Pod[] {
  let matched = candidates.filter((p) => matches(p, term));
  let unmatched = candidates.filter((p) => !matches(p, term));
  if (matched.length <= 1 || unmatched.length <= 1) return candidates;
  let totalMatched = all.filter((p) => matches(p, term)).length;
  const totalUnmatched = all.length - totalMatched;
  const last = matched[matched.length - 1]!;
  matched = matched.slice(0, -1);
  totalMatched--;
  const g = groupsByDensity(totalMatched, totalUnmatched, matched.length, unmatched.length);
  const out: Pod[] = [];
  if (g.unmatchedRemainder > 0) {
    out.push(...unmatched.slice(0, g.unmatchedRemainder));
    unmatched = unmatched.slice(g.unmatchedRemainder);
  }
  for (let i = 0; i < g.groupNum; i++) {
    out.push(...matched.slice(0, g.matchedSize));
    matched = matched.slice(g.matchedSize);
    out.push(...unmatched.slice(0, g.unmatchedSize));
    unmatched = unmatched.slice(g.unmatchedSize);
  }
  out.push(...matched, ...unmatched, last);
  return out;
}

/**
 * Spreads pods carrying scatter labels across the update order (upstream's scatter sorter): per
 * term, matched and unmatched candidates interleave in groups sized by their density, the last
 * matched candidate going last. `all` is every pod of the workload.
 */
export function sortByScatter(
  all: Pod[],
  candidates: Pod[],
  strategy: UpdateScatterTerm[] | undefined,
): Pod[] {
  if (!strategy?.length || candidates.length <= 1) return candidates;
  let out = candidates;
  for (const term of scatterTerms(candidates, strategy)) out = scatterByTerm(term, all, out);
  return out;
}
