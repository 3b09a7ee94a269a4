import type { Command } from '../command.ts';
import { scale } from './scale.ts';

/**
 * Every `kubectl kruise` command. Adding one = a file under commands/ and a line here; the
 * dispatcher picks the longest `path` that leads the command line.
 */
export const COMMANDS: readonly Command[] = [scale];
