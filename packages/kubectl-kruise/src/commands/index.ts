import type { Command } from '../command.ts';
import { createContainerRecreateRequest } from './create-container-recreate-request.ts';
import { exec } from './exec.ts';
import { migrate } from './migrate.ts';
import { rolloutHistory } from './rollout-history.ts';
import { rolloutPause, rolloutResume } from './rollout-pause.ts';
import { rolloutRestart } from './rollout-restart.ts';
import { rolloutStatus } from './rollout-status.ts';
import { rolloutUndo } from './rollout-undo.ts';
import { scale } from './scale.ts';
import { scaledown } from './scaledown.ts';
import { setEnv } from './set-env.ts';
import { setImage } from './set-image.ts';
import { setResources } from './set-resources.ts';
import { setServiceAccount } from './set-serviceaccount.ts';

/**
 * Every `kubectl kruise` command. Adding one = a file under commands/ and a line here; the
 * dispatcher picks the longest `path` that leads the command line.
 */
export const COMMANDS: readonly Command[] = [
  createContainerRecreateRequest,
  exec,
  migrate,
  rolloutHistory,
  rolloutPause,
  rolloutRestart,
  rolloutResume,
  rolloutStatus,
  rolloutUndo,
  scale,
  scaledown,
  setEnv,
  setImage,
  setResources,
  setServiceAccount,
];
