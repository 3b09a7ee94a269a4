/**
 * A boolean query parameter as kube-apiserver converts it (Convert_Slice_string_To_bool): absent,
 * `0` or `false` (any case) is false; anything else, even an empty value or `True`, is true.
 */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}
