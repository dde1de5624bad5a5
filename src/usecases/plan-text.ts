import { planTextChunks, type RenderTextOptions } from '../plan/render-text.js';
import type { Plan } from '../plan/operations.js';
import type { MemoryHook } from './hooks.js';

/**
 * Writes a plan's text in pieces, each once the output has taken the one before: a large plan's
 * text is neither held whole nor queued whole for a slow reader. The pieces are large strings that
 * only a full collection frees: `memory` is told after each.
 */
export async function writePlanText(
  plan: Plan,
  options: RenderTextOptions,
  to: { write: (text: string) => void; drained?: (() => Promise<void>) | undefined },
  memory?: MemoryHook,
): Promise<void> {
  for (const chunk of planTextChunks(plan, options)) {
    to.write(chunk);
    await to.drained?.();
    memory?.check();
  }
}
