import type { Command } from '../command.ts';
import { createContainerRecreateRequest } from './create-container-recreate-request.ts';
import { scale } from './scale.ts';
import { scaledown } from './scaledown.ts';

/**
 * Every `kubectl kruise` command. Adding one = a file under commands/ and a line here; the
 * dispatcher picks the longest `path` that leads the command line.
 */
export const COMMANDS: readonly Command[] = [scale, scaledown, createContainerRecreateRequest];
