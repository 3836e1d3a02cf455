import { useEffect, useEffectEvent } from 'react';
import { Undo2 } from 'lucide-react';
import { useT } from '@/lib/i18n';

/** "You passed Kai · Undo" over the bottom navigation until `until` (`Date.now()` time), then
 *  `onExpire`. */
export function UndoBar({ text, until, onUndo, onExpire, busy }: { text: string; until: number; onUndo: () => void; onExpire: () => void; busy: boolean }) {
  const t = useT();
  const expire = useEffectEvent(onExpire);
  useEffect(() => {
    const timer = setTimeout(() => expire(), Math.max(0, until - Date.now()));
    return () => clearTimeout(timer);
  }, [until]);
  return (
    <div className="undo-bar" role="status" data-testid="undo-bar">
      <p>{text}</p>
      <button type="button" onClick={onUndo} disabled={busy} data-testid="undo">
        <Undo2 aria-hidden="true" />
        {t('match.undo')}
      </button>
    </div>
  );
}
