import { getMockUser, MOCK_BASE, randomLineUserId, upsertMockUser, type MockLineUser } from '@/lib/liff';

export { getMockUser, upsertMockUser, randomLineUserId, type MockLineUser };

export interface PushedMessage {
  to?: string;
  messages?: unknown[];
  [k: string]: unknown;
}

/** GET /__mock/line/messages: what the server pushed to LINE users. */
export async function listPushedMessages(): Promise<PushedMessage[]> {
  const res = await fetch(`${MOCK_BASE}/messages`, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = (await res.json()) as unknown;
  if (Array.isArray(body)) return body as PushedMessage[];
  if (body && typeof body === 'object' && Array.isArray((body as { messages?: unknown }).messages)) {
    return (body as { messages: PushedMessage[] }).messages;
  }
  return [];
}
