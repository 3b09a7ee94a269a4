/** Resource quantities live in `@kruise/api` (the local node computes with them too). */
export {
  canonicalQuantity,
  formatQuantity,
  parseQuantity,
  type Quantity,
  quantitiesEqual,
} from '@kruise/api';
