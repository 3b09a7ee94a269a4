/** The spellings Go's `strconv.ParseBool` reads as true. */
export const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'] as const;

/** The spellings Go's `strconv.ParseBool` reads as false. */
export const GO_FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'] as const;

/**
 * Reads a boolean as Go's `strconv.ParseBool` does (`1`, `t`, `T`, `TRUE`, `true`, `True` and the
 * false spellings `0`, `f`, `F`, `FALSE`, `false`, `False`) — what pflag's bool flags and
 * component-base's feature gates accept.
 * @throws Error in Go's words: `strconv.ParseBool: parsing "yes": invalid syntax`.
 */
export function parseGoBool(text: string): boolean {
  if ((GO_TRUE as readonly string[]).includes(text)) return true;
  if ((GO_FALSE as readonly string[]).includes(text)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}
