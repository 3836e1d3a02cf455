import { use } from 'react';
import { extendMessages, useT } from '@/lib/i18n';
import { cameFrom, navigate } from '@/lib/navigation';
import { HELP_TOPICS, topicFrom, type HelpTopic } from '@/features/help/topics';
import '@/features/help/components/help.css';

/** /help and /help?topic=…: the community guidelines, safety tips, what "verified employer" means,
 *  the terms and the privacy policy. A lazy chunk with its own texts, readable by
 *  anyone (the register form links the privacy policy before there is an account). */
const helpMessages = extendMessages({
  'zh-TW': () => import('@/features/help/locales/zh-TW.json'),
  en: () => import('@/features/help/locales/en.json'),
  ja: () => import('@/features/help/locales/ja.json'),
});

/** Where the help was opened from (a profile's settings, a chat, the register form): its index's
 *  way back, kept while the member reads from topic to topic; the app's home when opened alone. */
let openedFrom = '/';

/** Where the index's way back leads: the screen the help was opened from, kept over its topics. */
function wayBack(): string {
  const from = cameFrom();
  if (from !== null && !from.startsWith('/help')) openedFrom = from;
  return openedFrom;
}

/** The terms and the privacy policy wait for the company's lawyer. */
const DRAFTS: ReadonlySet<HelpTopic> = new Set(['terms', 'privacy']);

export default function HelpPage() {
  use(helpMessages);
  const t = useT();
  // The shell renders the route again on every guarded navigation, the query's changes included.
  const topic = topicFrom(location.search);
  const back = wayBack();
  if (!topic) {
    return (
      <section className="page help-page" aria-labelledby="help-title" data-testid="help-index">
        <a
          className="help-back"
          href={back}
          data-testid="help-leave"
          onClick={(e) => {
            e.preventDefault();
            void navigate(back);
          }}
        >
          {t('help.leave')}
        </a>
        <h1 id="help-title">{t('help.title')}</h1>
        <ul className="help-topics">
          {HELP_TOPICS.map((name) => (
            <li key={name}>
              <a href={`/help?topic=${name}`} data-testid={`help-topic-${name}`} onClick={(e) => { e.preventDefault(); void navigate(`/help?topic=${name}`); }}>
                <strong>{t(`help.${name}.title`)}</strong>
                <span className="muted">{t(`help.${name}.summary`)}</span>
              </a>
            </li>
          ))}
        </ul>
      </section>
    );
  }
  const [intro, ...rest] = t(`help.${topic}.body`).split('\n');
  const items = rest.filter((line) => line.startsWith('- ')).map((line) => line.slice(2));
  const closing = rest.filter((line) => !line.startsWith('- '));
  return (
    <article className="page help-page" aria-labelledby="help-title" data-testid="help-topic" data-topic={topic}>
      <a className="help-back" href="/help" onClick={(e) => { e.preventDefault(); void navigate('/help'); }} data-testid="help-back">
        {t('help.back')}
      </a>
      <h1 id="help-title">{t(`help.${topic}.title`)}</h1>
      {DRAFTS.has(topic) ? <p className="notice" role="note" data-testid="help-draft">{t('help.draft')}</p> : null}
      <p>{intro}</p>
      {items.length ? (
        <ul className="help-points">
          {items.map((item) => <li key={item}>{item}</li>)}
        </ul>
      ) : null}
      {closing.map((line) => <p key={line}>{line}</p>)}
    </article>
  );
}
