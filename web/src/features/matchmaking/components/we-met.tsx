import { useEffect, useId, useRef, useState } from 'react';
import { Coffee } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { matchmakingApi, type WeMetQuestion } from '@/features/matchmaking/api/matchmaking-api';

type Step = 'met' | 'again' | 'sending' | 'done';

/** "Did you meet <nickname>?" and, after a yes, "Would you like to see them again?": asked a few
 *  days after both wrote (the server decides when), on top of /matches. The answer is the
 *  member's alone; the card says so, and nothing of it ever reaches the other member. */
export function WeMetCard({ question, onAnswered }: { question: WeMetQuestion; onAnswered?: (matchId: number) => void }) {
  const t = useT();
  const titleId = useId();
  const [step, setStep] = useState<Step>('met');
  const [asked, setAsked] = useState<Step>('met');
  const name = question.nickname;
  const send = async (met: boolean, seeAgain?: boolean) => {
    setAsked(step);
    setStep('sending');
    try {
      await matchmakingApi.answerWeMet(question.matchId, seeAgain == null ? { met } : { met, seeAgain });
      setStep('done');
      onAnswered?.(question.matchId);
    } catch {
      toast.error(t('match.weMet.failed'));
      setStep(met ? 'again' : 'met');
    }
  };
  const shown = step === 'sending' ? asked : step;
  const busy = step === 'sending';
  // The buttons pressed are gone with their step: the next question (or the thanks) takes the
  // focus, so a screen reader reads it and the keyboard stays in the card.
  const title = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  useEffect(() => {
    if (shown === 'met' && !moved.current) return;
    moved.current = true;
    title.current?.focus();
  }, [shown]);
  return (
    <section className="card we-met" aria-labelledby={titleId} data-testid="we-met" data-match-id={question.matchId}>
      {shown === 'done' ? (
        <>
          <h2 id={titleId} className="we-met-title" tabIndex={-1} ref={title}>
            <Coffee aria-hidden="true" />
            {t('match.weMet.thanksTitle')}
          </h2>
          <p role="status" data-testid="we-met-thanks">{t('match.weMet.thanks')}</p>
        </>
      ) : shown === 'again' ? (
        <>
          <h2 id={titleId} className="we-met-title" tabIndex={-1} ref={title}>
            <Coffee aria-hidden="true" />
            {t('match.weMet.againQuestion', { name })}
          </h2>
          <p className="muted" data-testid="we-met-private">{t('match.weMet.private', { name })}</p>
          <p className="we-met-actions">
            <button type="button" className="btn btn-primary" data-testid="we-met-again-yes" disabled={busy} onClick={() => void send(true, true)}>
              {t('match.weMet.againYes')}
            </button>
            <button type="button" className="btn" data-testid="we-met-again-no" disabled={busy} onClick={() => void send(true, false)}>
              {t('match.weMet.againNo')}
            </button>
          </p>
        </>
      ) : (
        <>
          <h2 id={titleId} className="we-met-title" tabIndex={-1} ref={title}>
            <Coffee aria-hidden="true" />
            {t('match.weMet.question', { name })}
          </h2>
          <p className="muted" data-testid="we-met-private">{t('match.weMet.private', { name })}</p>
          <p className="we-met-actions">
            <button type="button" className="btn btn-primary" data-testid="we-met-yes" disabled={busy} onClick={() => setStep('again')}>
              {t('match.weMet.yes')}
            </button>
            <button type="button" className="btn" data-testid="we-met-no" disabled={busy} onClick={() => void send(false)}>
              {t('match.weMet.no')}
            </button>
          </p>
        </>
      )}
    </section>
  );
}
