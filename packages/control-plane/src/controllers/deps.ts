import type { ObjectService } from '../api/objects.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../store/store.ts';

/** What the built-in controllers work with. */
export interface ControllerDeps {
  store: Store;
  registry: ResourceRegistry;
  objects: ObjectService;
}

/** Base of the built-in controllers: holds their dependencies. */
export abstract class BuiltinController {
  protected readonly store: Store;
  protected readonly registry: ResourceRegistry;
  protected readonly objects: ObjectService;

  constructor(deps: ControllerDeps) {
    this.store = deps.store;
    this.registry = deps.registry;
    this.objects = deps.objects;
  }
}
