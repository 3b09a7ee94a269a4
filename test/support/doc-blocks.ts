/** A fenced code block of a Markdown document. */
export interface FencedBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string split into words: `yaml helm-values` → `['yaml', 'helm-values']`. */
  info: string[];
  /** The block's content, without the fences. */
  text: string;
}

/**
 * The fenced code blocks (``` or ~~~) of a Markdown document, in document order. A fence is closed
 * by a line of the same character, at least as long, with nothing after it (CommonMark).
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  let open: { fence: string; line: number; info: string[]; body: string[] } | undefined;
  for (const [i, line] of lines.entries()) {
    if (!open) {
      const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      if (m) open = { fence: m[1]!, line: i + 1, info: m[2]!.trim().split(/\s+/).filter(Boolean), body: [] };
      continue;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      blocks.push({ line: open.line, info: open.info, text: `${open.body.join('\n')}\n` });
      open = undefined;
    } else open.body.push(line);
  }
  return blocks;
}

/** The message fragment a block's first line says it must be refused with (`# expect-error: …`). */
export function expectedError(text: string): string | undefined {
  return /^# expect-error: (.+)$/.exec(text.split('\n', 1)[0] ?? '')?.[1]?.trim();
}

/** The relative link targets of a Markdown document (`[text](target)`), without `#anchor`s. */
export function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => t.split('#', 1)[0]!);
}
