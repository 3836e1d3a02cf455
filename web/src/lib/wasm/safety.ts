import type { Conversation, SafetyKind } from '@/wasm-safety-pkg/kizuna_wasm_safety';

export type { Conversation, SafetyKind };

/** The safety rule's wasm module (kizuna-wasm-safety, docs/core-api.md "Safe conversations"):
 *  a module of its own, imported only by the chat screen, so that /register never downloads it
 *  and the register form's core keeps its budget. Built with wasm-bindgen's `web` target: it
 *  fetches its .wasm itself (an asset Vite emits), so it shares no loader chunk with the register
 *  form's core, whose chunks stay as they were. */
export interface SafetyModule {
  /** The kinds a message is worth a caution for in its conversation (kizuna-core's
   *  `safety::screen`, as the server runs it). */
  screenMessage(text: string, conversation: Conversation): SafetyKind[];
}

let loading: Promise<SafetyModule> | null = null;

/** `bytes`: the module's .wasm when the caller has it (the unit tests, under Node, read it from
 *  disk); the browser fetches it. */
export function loadSafety(bytes?: BufferSource): Promise<SafetyModule> {
  loading ??= import('@/wasm-safety-pkg/kizuna_wasm_safety')
    .then(async (pkg) => {
      await pkg.default(bytes ? { module_or_path: bytes } : undefined);
      return pkg;
    })
    .catch((err: unknown) => {
      // A failed download may be retried by the next screen that asks.
      loading = null;
      throw err;
    });
  return loading;
}
