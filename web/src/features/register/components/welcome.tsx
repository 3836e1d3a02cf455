import { BadgeCheck, Clock, Eye, HeartHandshake } from 'lucide-react';
import { useT } from '@/lib/i18n';

/** A new member's first screen, before step 1: what Kizuna is, why work is verified, what a
 *  reviewer sees and how long it all takes (Hinge and Pairs say so before the first field). Its
 *  texts are on the first screen's part of the messages; Start opens the form. */
export function Welcome({ onStart }: { onStart: () => void }) {
  const t = useT();
  const points = [
    { Icon: HeartHandshake, title: null, text: 'register.welcome.what' },
    { Icon: BadgeCheck, title: 'register.welcome.whyTitle', text: 'register.welcome.why' },
    { Icon: Eye, title: 'register.welcome.reviewTitle', text: 'register.welcome.review' },
    { Icon: Clock, title: 'register.welcome.timeTitle', text: 'register.welcome.time' },
  ] as const;
  return (
    <section className="page register-page welcome" aria-labelledby="welcome-title" data-testid="register-welcome">
      <p className="eyebrow">{t('register.welcome.eyebrow')}</p>
      <h1 id="welcome-title">{t('register.welcome.title')}</h1>
      <ul className="welcome-points">
        {points.map(({ Icon, title, text }) => (
          <li key={text}>
            <Icon aria-hidden="true" />
            <div>
              {title ? <h2>{t(title)}</h2> : null}
              <p>{t(text)}</p>
            </div>
          </li>
        ))}
      </ul>
      <div className="welcome-start">
        <button type="button" className="btn btn-primary" data-testid="welcome-start" onClick={onStart}>
          {t('register.welcome.start')}
        </button>
      </div>
    </section>
  );
}
