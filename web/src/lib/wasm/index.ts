import type { Core } from '@/lib/wasm/types';

export type * from '@/lib/wasm/types';
export { RANGE_CONDITIONS, VALUE_CONDITIONS } from '@/lib/wasm/types';

/** Loads the wasm core once (vite-plugin-wasm); every rule the form applies comes from here. */
let loading: Promise<Core> | null = null;
let loaded: Core | null = null;

export function loadCore(): Promise<Core> {
  loading ??= import('@/wasm-pkg/kizuna_wasm').then((pkg) => {
    loaded = pkg;
    return pkg;
  });
  return loading;
}

export function coreIfLoaded(): Core | null {
  return loaded;
}

export function todayIso(now = new Date()): string {
  const y = now.getFullYear();
  const m = String(now.getMonth() + 1).padStart(2, '0');
  const d = String(now.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}
