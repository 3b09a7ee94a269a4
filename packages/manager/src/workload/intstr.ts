/** IntOrString parsing lives in `@kruise/api` (the plugin rounds maxUnavailable as the controller does). */
export {
  type IntOrString,
  intPercentValue,
  intPercentValueOrZero,
  scaledValue,
} from '@kruise/api';
