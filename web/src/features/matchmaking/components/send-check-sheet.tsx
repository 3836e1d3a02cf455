import { ShieldAlert } from 'lucide-react';
import { extendMessages, useT } from '@/lib/i18n';
import { describeError, logger } from '@/lib/logger';
import type { SafetyKind } from '@/lib/wasm/safety';
import { Dialog } from '@/features/matchmaking/components/dialog';

// The sheet's texts travel with the chat's chunk (this module): the app's catalogue, which
// /register loads too, does not carry them. Asked for when the chat loads; the sheet opens on a
// send, long after.
extendMessages({
  'zh-TW': () => import('@/features/matchmaking/locales/zh-TW.json'),
  en: () => import('@/features/matchmaking/locales/en.json'),
  ja: () => import('@/features/matchmaking/locales/ja.json'),
}).catch((err: unknown) => logger.warn(`chat messages did not load: ${describeError(err)}`));

const REASON: Record<SafetyKind, string> = {
  OFF_PLATFORM: 'match.sendCheck.offPlatform',
  MONEY: 'match.sendCheck.money',
};

/** The sheet a held message opens (use-send-check): the message, why it looks like a common scam
 *  sign, and Edit (back to the input, the text kept) or Send anyway. A modal dialog: focus moves
 *  to Edit, the safe choice, and Esc edits. */
export function SendCheckSheet({ kinds, text, onEdit, onSend }: { kinds: readonly SafetyKind[] | null; text: string; onEdit: () => void; onSend: () => void }) {
  const t = useT();
  return (
    <Dialog open={kinds !== null} title={t('match.sendCheck.title')} onClose={onEdit} testId="send-check" describedBy="send-check-reasons" initialFocus={'[data-testid="send-check-edit"]'}>
      {kinds !== null ? (
        <div className="send-check">
          <blockquote className="send-check-text" data-testid="send-check-text">{text}</blockquote>
          <ul id="send-check-reasons" className="send-check-reasons">
            {kinds.map((kind) => (
              <li key={kind} data-testid={`send-check-${kind}`}>
                <ShieldAlert aria-hidden="true" />
                <span>{t(REASON[kind])}</span>
              </li>
            ))}
          </ul>
          <div className="mm-dialog-actions">
            {/* The safe choice: the focus the dialog opens on. */}
            <button type="button" className="btn btn-primary" data-testid="send-check-edit" onClick={onEdit}>
              {t('match.sendCheck.edit')}
            </button>
            <button type="button" className="btn" data-testid="send-check-send" onClick={onSend}>
              {t('match.sendCheck.sendAnyway')}
            </button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
