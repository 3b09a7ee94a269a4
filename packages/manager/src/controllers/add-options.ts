import type { ControllerBuilder, Manager } from '@kruise/runtime';
import type { AppTuning, ManagerOptions } from '../options.ts';

/** What every controller's `add(manager, options)` is given: the command line and the knobs tests turn. */
export interface AddOptions {
  flags: ManagerOptions;
  tuning: AppTuning;
}

/**
 * A controller's `add`: takes the shared informers it watches from the manager's factory, declares
 * its indexes, cache trims and which events queue which keys, and registers its reconciler.
 */
export type AddController = (manager: Manager, options: AddOptions) => ControllerBuilder;
