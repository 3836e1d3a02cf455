import { useEffect, useState } from 'react';
import { useLocale, useT } from '@/lib/i18n';
import { reviewTimeApi, type ReviewTime } from '@/features/profile/api/profile-api';

/** A wait in the largest unit that keeps it readable, rounded up (a promise of "2 hours" for a wait
 *  of 2 h 10 min would be broken for half the members it is shown to). */
export function waitText(secs: number, locale: string): string {
  const [unit, size] = secs < 3600 ? (['minute', 60] as const) : secs < 48 * 3600 ? (['hour', 3600] as const) : (['day', 86_400] as const);
  const n = Math.max(1, Math.ceil(secs / size));
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(n);
}

/** The usual review time from the real queue (the server's median and 90th percentile of the last
 *  week's first decisions), in words; while there were too few decisions to say, a sentence that
 *  says so instead of a number. Nothing when the figures could not be read. */
export function ReviewTimeLine() {
  const t = useT();
  const locale = useLocale();
  const [time, setTime] = useState<ReviewTime | null>(null);
  useEffect(() => {
    let live = true;
    reviewTimeApi
      .get()
      .then((value) => live && setTime(value))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  if (!time) return null;
  const usual = time.usual ?? null;
  return (
    <p className="review-time" data-testid="review-time" data-figures={usual ? 'usual' : 'too-little'}>
      {usual
        ? t('review.time.usual', { days: time.windowDays, median: waitText(usual.medianSecs, locale), p90: waitText(usual.p90Secs, locale) })
        : t('review.time.tooLittle', { days: time.windowDays })}
    </p>
  );
}
