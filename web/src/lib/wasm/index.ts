import type { Core } from '@/lib/wasm/types';

export type * from '@/lib/wasm/types';
export { RANGE_CONDITIONS, VALUE_CONDITIONS, RULE_CODES } from '@/lib/wasm/types';

/** Loads the wasm core once (vite-plugin-wasm); every rule the form applies comes from here. */
let loading: Promise<Core> | null = null;
let loaded: Core | null = null;

function normalise<T>(value: T): T {
  // serde-wasm-bindgen may hand out Maps for string-keyed objects; the form wants plain objects.
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = normalise(v);
    return out as T;
  }
  if (Array.isArray(value)) return value.map(normalise) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v);
    return out as T;
  }
  return value;
}

export function loadCore(): Promise<Core> {
  loading ??= import('@/wasm-pkg/kizuna_wasm').then((pkg) => {
    const m = pkg as unknown as Record<string, (...args: unknown[]) => unknown>;
    const call = <T>(name: string, ...args: unknown[]): T => normalise(m[name]!(...args) as T);
    const core: Core = {
      catalogues: () => call('catalogues'),
      emptyDraft: () => call('emptyDraft'),
      repairDraft: (stored) => call('repairDraft', stored ?? null),
      validateDraft: (draft, id, today) => call('validateDraft', draft, id, today),
      buildPayload: (draft, id, today) => call('buildPayload', draft, id, today),
      employerForEmail: (email) => call('employerForEmail', email) ?? undefined,
    };
    loaded = core;
    return core;
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
