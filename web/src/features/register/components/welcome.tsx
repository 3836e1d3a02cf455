import { createElement } from 'react';
import heartHandshake from 'virtual:icon/heart-handshake';
import badgeCheck from 'virtual:icon/badge-check';
import eye from 'virtual:icon/eye';
import clock from 'virtual:icon/clock';
import { useT } from '@/lib/i18n';

/** Lucide's markup for one of its icons, drawn from the icon's data (vite.config.ts `iconData`):
 *  lucide-react's component runtime is a chunk of its own, one more request on a newcomer's first
 *  screen. */
function WelcomeIcon({ icon: { name, node } }: { icon: typeof eye }) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      width="24"
      height="24"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      className={`lucide lucide-${name}`}
      aria-hidden="true"
    >
      {node.map(([tag, attrs], i) => createElement(tag, { key: i, ...attrs }))}
    </svg>
  );
}

/** A new member's first screen, before step 1: what Kizuna is, why work is verified, what a
 *  reviewer sees and how long it all takes (Hinge and Pairs say so before the first field). Its
 *  texts are on the first screen's part of the messages; Start opens the form. */
export function Welcome({ onStart }: { onStart: () => void }) {
  const t = useT();
  const points = [
    { icon: heartHandshake, title: null, text: 'register.welcome.what' },
    { icon: badgeCheck, title: 'register.welcome.whyTitle', text: 'register.welcome.why' },
    { icon: eye, title: 'register.welcome.reviewTitle', text: 'register.welcome.review' },
    { icon: clock, title: 'register.welcome.timeTitle', text: 'register.welcome.time' },
  ] as const;
  return (
    <section className="page register-page welcome" aria-labelledby="welcome-title" data-testid="register-welcome">
      <p className="eyebrow">{t('register.welcome.eyebrow')}</p>
      <h1 id="welcome-title">{t('register.welcome.title')}</h1>
      <ul className="welcome-points">
        {points.map(({ icon, title, text }) => (
          <li key={text}>
            <WelcomeIcon icon={icon} />
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
