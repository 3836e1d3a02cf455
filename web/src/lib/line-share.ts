import { lineShare } from 'virtual:core-rules';
import { isMocked, liff } from '@/lib/liff';
import { logger } from '@/lib/logger';

/** Sending one LINE friend a Flex Message through `liff.shareTargetPicker` ("Share my date" in a
 *  chat, "Invite a friend" on /profile): the message goes from the member's LINE to the friend
 *  they pick, and nothing of it passes through Kizuna's server. LINE's limits are the core's
 *  (`virtual:core-rules` `lineShare`, from kizuna-core's `push`); the server's Flex builder is in
 *  Rust and never runs in the browser, so the bubbles are built here with those limits. */

/** The LIFF app's permanent link to `path` (kizuna-core's `push::permanent_link`, which the
 *  pushes' buttons use): LINE opens the app on that screen. */
export function liffLink(liffId: string, path: string): string {
  return `https://liff.line.me/${liffId}${path}`;
}

/** What came of asking LINE to share. */
export type ShareOutcome = 'sent' | 'cancelled' | 'unavailable' | 'failed';

// ---- Flex Message (only the parts these bubbles use; LINE's JSON shape) ----

export interface FlexText {
  type: 'text';
  text: string;
  size?: string;
  weight?: 'regular' | 'bold';
  color?: string;
  /** Its share of a horizontal or baseline box's width. */
  flex?: number;
  wrap: boolean;
}
export interface FlexButton {
  type: 'button';
  style: 'primary' | 'secondary' | 'link';
  color: string;
  action: { type: 'uri'; label: string; uri: string };
}
export interface FlexBox {
  type: 'box';
  layout: 'vertical' | 'horizontal' | 'baseline';
  contents: (FlexBox | FlexText | FlexButton)[];
  spacing?: string;
  paddingAll?: string;
  backgroundColor?: string;
  flex?: number;
}
export interface FlexBubble {
  type: 'bubble';
  size: 'kilo' | 'mega';
  header: FlexBox;
  body: FlexBox;
  footer: FlexBox;
}
export interface FlexMessage {
  type: 'flex';
  altText: string;
  contents: FlexBubble;
}

/** Kizuna's rose and grey (kizuna-core's `push` bubbles use the same). */
export const BRAND = '#C2185B';
export const MUTED = '#5F6368';

/** Length as LINE counts it: UTF-16 code units (JavaScript's own `length`). */
export function lineChars(text: string): number {
  return text.length;
}

/** `text` cut to at most `max` UTF-16 code units, an ellipsis marking a cut, never halving a
 *  character (kizuna-core's `push::truncate`). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const c of text) {
    if (out.length + c.length > max - 1) break;
    out += c;
  }
  return `${out}…`;
}

export function text(value: string, more: Partial<Omit<FlexText, 'type' | 'text'>> = {}): FlexText {
  return { type: 'text', text: value, wrap: true, ...more };
}

/** The wordmark header the pushes carry: drawn by LINE, no image to fetch. */
export function wordmark(): FlexBox {
  return {
    type: 'box',
    layout: 'vertical',
    paddingAll: '12px',
    backgroundColor: BRAND,
    contents: [text('Kizuna 絆', { size: 'sm', weight: 'bold', color: '#FFFFFF' })],
  };
}

/** One button opening `uri`, its label cut to LINE's limit. */
export function linkButton(label: string, uri: string): FlexButton {
  return { type: 'button', style: 'primary', color: BRAND, action: { type: 'uri', label: truncate(label, lineShare.actionLabelMaxChars), uri } };
}

/** A one-bubble Flex Message: the wordmark, `body`, one button. The altText (what a notification
 *  and a client without Flex show) is cut to LINE's limit. */
export function bubbleMessage(altText: string, body: FlexBox['contents'], button: FlexButton): FlexMessage {
  return {
    type: 'flex',
    altText: truncate(altText, lineShare.altTextMaxChars),
    contents: {
      type: 'bubble',
      size: 'kilo',
      header: wordmark(),
      body: { type: 'box', layout: 'vertical', spacing: 'md', contents: body },
      footer: { type: 'box', layout: 'vertical', contents: [button] },
    },
  };
}

/** What LINE would refuse in `message` (kizuna-core's `push::check_messages`, for the parts these
 *  bubbles use), null when nothing: an altText of 1 to the limit, the bubble's size, every link
 *  HTTPS within its length and every label within its own, no text empty, and no image at all
 *  (a shared bubble carries no photo). */
export function refusal(message: FlexMessage): string | null {
  if (!message.altText.trim() || lineChars(message.altText) > lineShare.altTextMaxChars) return 'altText';
  if (new TextEncoder().encode(JSON.stringify(message.contents)).length > lineShare.bubbleMaxBytes) return 'bubble size';
  const walk = (node: unknown): string | null => {
    if (Array.isArray(node)) return node.map(walk).find((r) => r !== null) ?? null;
    if (!node || typeof node !== 'object') return null;
    const o = node as Record<string, unknown>;
    if (o.type === 'image' || 'hero' in o) return 'image';
    if (o.type === 'text' && !String(o.text ?? '').trim()) return 'empty text';
    const action = o.action as { uri?: string; label?: string } | undefined;
    if (action) {
      const uri = action.uri ?? '';
      if (!uri.startsWith('https://') || uri.length > lineShare.uriMaxChars) return 'uri';
      if (lineChars(action.label ?? '') > lineShare.actionLabelMaxChars) return 'label';
    }
    return Object.values(o).map(walk).find((r) => r !== null) ?? null;
  };
  return walk(message.contents);
}

// ---- The picker ----

let modules: Promise<void> | null = null;

/** The two LIFF modules sharing needs, loaded on the first share (the app's start does not need
 *  them). On the mock platform the mock's own functions stand in and must not be replaced. */
function loadModules(): Promise<void> {
  if (isMocked()) return Promise.resolve();
  modules ??= Promise.all([import('@line/liff/is-api-available'), import('@line/liff/share-target-picker')])
    .then(([{ default: IsApiAvailable }, { default: ShareTargetPicker }]) => {
      liff.use(new IsApiAvailable());
      liff.use(new ShareTargetPicker());
    })
    .catch((err: unknown) => {
      modules = null;
      throw err;
    });
  return modules;
}

/** Whether this LINE can show its share target picker: false outside LINE without a LINE login,
 *  in a LINE too old for it, or when the LIFF app does not allow it. */
export async function canShare(): Promise<boolean> {
  try {
    await loadModules();
    return Boolean(liff.isApiAvailable('shareTargetPicker'));
  } catch {
    return false;
  }
}

/** Opens LINE's friend list for ONE friend and sends them `message`. LINE answers
 *  `{status: 'success'}` when it was sent and nothing (or false) when the member closed the list;
 *  an error thrown (a LINE error, a time-out) is 'failed'. Only the error's code is logged: the
 *  log goes to the server, and a message may echo what was being sent. */
export async function shareWithOneFriend(message: FlexMessage): Promise<ShareOutcome> {
  if (!(await canShare())) return 'unavailable';
  try {
    const result: unknown = await liff.shareTargetPicker([message] as Parameters<typeof liff.shareTargetPicker>[0], { isMultiple: false });
    return result && typeof result === 'object' && (result as { status?: unknown }).status === 'success' ? 'sent' : 'cancelled';
  } catch (err) {
    const code = err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : err instanceof Error ? err.name : 'unknown';
    logger.warn(`share target picker failed: ${code.slice(0, 60)}`);
    return 'failed';
  }
}

/** The translation key of each outcome's message. */
export const OUTCOME_KEYS: Record<ShareOutcome, string> = {
  sent: 'share.sent',
  cancelled: 'share.cancelled',
  unavailable: 'share.unavailable',
  failed: 'share.failed',
};
