import type { PublicConfigBody } from '@/lib/api/types';

/** Public config: GET /api/config, as the OpenAPI document describes it. */
export type PublicConfig = PublicConfigBody;

let config: PublicConfig | null = null;

export async function loadConfig(): Promise<PublicConfig> {
  if (config) return config;
  const res = await fetch('/api/config', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`config: HTTP ${res.status}`);
  const body = (await res.json()) as Partial<PublicConfig>;
  config = {
    lineBotId: String(body.lineBotId ?? ''),
    liffId: String(body.liffId ?? ''),
    mockEnable: Boolean(body.mockEnable),
    apiServerPath: String(body.apiServerPath || '/api').replace(/\/+$/, ''),
    introductionsAt: typeof body.introductionsAt === 'string' ? body.introductionsAt : undefined,
  };
  return config;
}

export function getConfig(): PublicConfig | null {
  return config;
}

export function apiBase(): string {
  return config?.apiServerPath ?? '/api';
}

/** Test helper. */
export function setConfigForTest(value: PublicConfig | null): void {
  config = value;
}

export function addFriendUrl(lineBotId: string): string {
  return `https://line.me/R/ti/p/${encodeURIComponent(lineBotId)}`;
}
