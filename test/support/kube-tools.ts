/** The pinned kubectl and helm live with the stack (`pnpm start -- --in-cluster` applies with them too). */
export * from '../../packages/stack/src/kube-tools.ts';
