import { ShieldAlert } from 'lucide-react';
import { useT } from '@/lib/i18n';
import type { SafetyKind } from '@/lib/wasm/safety';
import { Dialog, type FocusTarget } from '@/features/matchmaking/components/dialog';
// The sheet's texts: asked for when the chat loads; the sheet opens on a send, long after.
import '@/features/matchmaking/lib/feature-messages';

const REASON: Record<SafetyKind, string> = {
  OFF_PLATFORM: 'match.sendCheck.offPlatform',
  MONEY: 'match.sendCheck.money',
};

/** The sheet a held message opens (use-send-check): the message, why it looks like a common scam
 *  sign, and Edit (back to the input, the text kept) or Send anyway. A modal dialog: focus moves
 *  to Edit, the safe choice, Esc edits, and either way out gives the focus to `input`. */
export function SendCheckSheet({ kinds, text, onEdit, onSend, input }: { kinds: readonly SafetyKind[] | null; text: string; onEdit: () => void; onSend: () => void; input: FocusTarget }) {
  const t = useT();
  return (
    <Dialog open={kinds !== null} title={t('match.sendCheck.title')} onClose={onEdit} testId="send-check" describedBy="send-check-reasons" initialFocus={'[data-testid="send-check-edit"]'} closeFocus={input}>
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
