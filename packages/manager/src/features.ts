/** The feature gates live in @kruise/api: kruise-manager and kruise-daemon parse the same set. */
export { FEATURE_DEFAULTS, FeatureGates, parseFeatureGates } from '@kruise/api';
