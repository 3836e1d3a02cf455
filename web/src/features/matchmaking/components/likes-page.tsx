import { useState } from 'react';
import { useT } from '@/lib/i18n';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { queryKeys, useQuery } from '@/lib/query';
import { navigate } from '@/lib/navigation';
import { BottomNav } from '@/components/bottom-nav';
import { Image } from '@/components/image';
import { matchmakingApi, type LikeItem } from '@/features/matchmaking/api/matchmaking-api';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { answerKey, ageAndCity } from '@/features/matchmaking/lib/member-facts';
import '@/features/matchmaking/components/matchmaking.css';

type Tab = 'received' | 'sent';

/** /likes: "Liked you" (likes from members already among the caller's introductions: a like
 *  makes nobody visible) and "Likes you sent", each like with its comment; a tile opens the
 *  profile, where Like makes the match. */
export default function LikesPage() {
  const t = useT();
  const cat = useCatalogues();
  const [state, reload] = useQuery(queryKeys.likes, matchmakingApi.likes);
  const [tab, setTab] = useState<Tab>('received');
  const lists = state.kind === 'ok' ? state.value : null;

  const tile = (item: LikeItem, from: Tab) => {
    const m = item.member;
    const c = item.like.comment;
    const about = c == null ? null : c.photoName != null ? t(from === 'received' ? 'match.likes.onYourPhoto' : 'match.likes.onTheirPhoto') : t(answerKey(c.answer ?? ''));
    return (
      <li key={m.memberId} data-testid="like-item" data-member-id={m.memberId}>
        <a
          className="like-tile"
          href={`/member?id=${m.memberId}`}
          onClick={(e) => {
            e.preventDefault();
            void navigate(`/member?id=${m.memberId}`);
          }}
        >
          {m.photoNameList[0] ? (
            <Image src={m.photoNameList[0]} alt={t('match.photoAlt', { n: 1, name: m.nickname })} width={180} height={240} sizes="(max-width: 560px) 50vw, 270px" />
          ) : (
            <div className="mm-no-photo">{t('match.noPhoto')}</div>
          )}
          <div className="like-tile-text">
            <h2 data-testid="member-nickname">{m.nickname}</h2>
            <small>{ageAndCity(t, cat, m)}</small>
            {c != null ? (
              <>
                <small>{about}</small>
                <q data-testid="like-comment-text">{c.text}</q>
              </>
            ) : null}
          </div>
        </a>
      </li>
    );
  };

  const shown = lists === null ? [] : tab === 'received' ? lists.received : lists.sent;
  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="likes-title">
      <header className="mm-head">
        <h1 id="likes-title">{t('match.likes.title')}</h1>
      </header>
      <div className="tabs" role="tablist" aria-label={t('match.likes.title')}>
        {(['received', 'sent'] as const).map((which) => (
          <button
            key={which}
            type="button"
            role="tab"
            id={`likes-tab-${which}`}
            aria-selected={tab === which}
            aria-controls="likes-panel"
            data-testid={`likes-tab-${which}`}
            onClick={() => setTab(which)}
          >
            {t(`match.likes.${which}`, { n: lists ? lists[which].length : 0 })}
          </button>
        ))}
      </div>
      <div id="likes-panel" role="tabpanel" aria-labelledby={`likes-tab-${tab}`}>
        {lists === null ? (
          <LoadStatus state={state} onRetry={reload} />
        ) : shown.length === 0 ? (
          <p className="card muted" data-testid="likes-empty">{t(`match.likes.${tab}Empty`)}</p>
        ) : (
          <ul className="like-grid" data-testid={`likes-${tab}`}>
            {shown.map((item) => tile(item, tab))}
          </ul>
        )}
      </div>
      <BottomNav current="likes" />
    </section>
  );
}
