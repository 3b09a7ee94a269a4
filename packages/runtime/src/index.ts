export { withConnectionReuse } from './kube/connection-reuse.ts';
