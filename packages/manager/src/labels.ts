/** Label selectors: the matcher and apimachinery's printed form live in `@kruise/api` (the plugin needs them too). */
export { labelSelectorMatches, labelSelectorString } from '@kruise/api';
