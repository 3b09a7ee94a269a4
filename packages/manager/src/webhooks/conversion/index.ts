import { ConverterRegistry } from '@kruise/runtime';
import { advancedCronJobConversion } from './advancedcronjob.ts';
import { broadcastJobConversion } from './broadcastjob.ts';
import { daemonSetConversion } from './daemonset.ts';
import { sidecarSetConversion } from './sidecarset.ts';
import { statefulSetConversion } from './statefulset.ts';

/**
 * The conversions kruise-manager's `/convert` webhook serves: one per multi-version kind. A kind
 * served at a second version adds its conversion here and nothing else (the CRD's webhook
 * client config and CA bundle come with the CRD and the certificate manager).
 */
export function kruiseConversions(): ConverterRegistry {
  return new ConverterRegistry()
    .register(statefulSetConversion)
    .register(daemonSetConversion)
    .register(broadcastJobConversion)
    .register(advancedCronJobConversion)
    .register(sidecarSetConversion);
}
