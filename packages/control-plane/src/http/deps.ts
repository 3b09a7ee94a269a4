import type { ObjectService } from '../api/objects.ts';
import type { AuditTrail } from '../audit.ts';
import type { RbacAuthorizer } from '../auth/rbac.ts';
import type { TokenAuthenticator } from '../auth/tokens.ts';
import type { FaultInjector } from '../faults.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../store/store.ts';

/** Everything the HTTP layer needs. */
export interface HandlerDeps {
  store: Store;
  registry: ResourceRegistry;
  objects: ObjectService;
  tokens: TokenAuthenticator;
  rbac: RbacAuthorizer;
  audit: AuditTrail;
  faults: FaultInjector;
  bookmarkIntervalMs: number;
}
