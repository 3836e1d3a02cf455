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

/** POST/DELETE /__mock/reviewers {userId}: the mock's reviewer switch. */
export async function setReviewer(userId: string, on: boolean): Promise<boolean> {
  const res = await fetch('/__mock/reviewers', {
    method: on ? 'POST' : 'DELETE',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ userId }),
  });
  if (!res.ok) throw new Error(`mock reviewers: HTTP ${res.status}`);
  return Boolean(((await res.json()) as { reviewer?: boolean }).reviewer);
}

/** POST /__mock/line/webhook-events: the mock platform signs a follow/unfollow event and delivers it
 *  to the server's webhook; answers the webhook's HTTP status. */
export async function sendWebhookEvent(type: 'follow' | 'unfollow', userId: string): Promise<number> {
  const res = await fetch(`${MOCK_BASE}/webhook-events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ type, userId }),
  });
  if (!res.ok) throw new Error(`mock webhook: HTTP ${res.status}`);
  return Number(((await res.json()) as { status?: number }).status ?? 0);
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  at: number;
}

/** GET /__mock/mail: what the server mailed (the in-process outbox), oldest first. */
export async function listMail(): Promise<OutboxMail[]> {
  const res = await fetch('/__mock/mail', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`mock mail: HTTP ${res.status}`);
  return (await res.json()) as OutboxMail[];
}
