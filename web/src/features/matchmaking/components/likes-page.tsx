import { useRef, useState } from 'react';
import { useT } from '@/lib/i18n';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { navigate } from '@/lib/navigation';
import { getUserInfo } from '@/lib/auth';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { BottomNav } from '@/components/bottom-nav';
import { Image } from '@/components/image';
import { matchmakingApi, type LikeItem, type MemberView } from '@/features/matchmaking/api/matchmaking-api';
import { ItsAMatch, type MatchNews } from '@/features/matchmaking/components/its-a-match';
import { YourTurnSheet, isYourTurn } from '@/features/matchmaking/components/your-turn-sheet';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { Reactions } from '@/features/matchmaking/components/reactions';
import { UndoBar } from '@/features/matchmaking/components/undo-bar';
import { answerKey, ageAndCity } from '@/features/matchmaking/lib/member-facts';
import { forgetPass, pendingPass, rememberPass, type PassUndo } from '@/features/matchmaking/lib/pass-undo';
import '@/features/matchmaking/components/matchmaking.css';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';

/** The text of a Q&A answer of `profile` by its wire code. */
function answerText(profile: Pick<MemberView, 'datingQuestion' | 'dailyLife' | 'surprisePoint'> | null | undefined, code: string): string | null {
  if (!profile) return null;
  const text = code === 'DATING_QUESTION' ? profile.datingQuestion : code === 'DAILY_LIFE' ? profile.dailyLife : profile.surprisePoint;
  return text?.trim() ? text : null;
}

type Tab = 'received' | 'sent';

/** /likes: "Liked you" (likes from members already among the caller's introductions: a like
 *  makes nobody visible) and "Likes you sent", each like with what it was about (the photo, or
 *  the answer's words) and its comment. A like received is answered in place: Like back makes
 *  the match ("It's a match" with the first message), Pass takes it away with Undo; the tile
 *  opens the profile. */
export default function LikesPage() {
  const t = useT();
  const cat = useCatalogues();
  const [state, reload, set] = useQuery(matchmakingQueries.likes);
  const [tab, setTab] = useState<Tab>('received');
  const [busy, setBusy] = useState<number | null>(null);
  const [matched, setMatched] = useState<MatchNews | null>(null);
  const [undo, setUndo] = useState<PassUndo | null>(pendingPass);
  const [undoing, setUndoing] = useState(false);
  // A like back held for the conversations waiting on the member's reply.
  const [held, setHeld] = useState<LikeItem | null>(null);
  const grid = useRef<HTMLUListElement>(null);
  const lists = state.kind === 'ok' ? state.value : null;
  const me = getUserInfo()?.profile ?? null;

  const answer = async (item: LikeItem, kind: 'LIKE' | 'PASS') => {
    if (lists === null) return;
    const m = item.member;
    setBusy(m.memberId);
    try {
      if (kind === 'LIKE') {
        const liked = await matchmakingApi.like(m.memberId);
        if (liked.matched) {
          setMatched({ name: m.nickname, photo: m.photoNameList[0] ?? null, matchId: liked.matchId ?? null });
          invalidate(queryKeys.matches);
        }
      } else {
        await matchmakingApi.pass(m.memberId);
        setUndo(rememberPass(m.memberId, m.nickname));
      }
      // Answered: the like leaves "Liked you" (a match has its own list; a pass hides them).
      set({ ...lists, received: lists.received.filter((r) => r.member.memberId !== m.memberId) });
      invalidate(queryKeys.introductions);
    } catch (err) {
      if (kind === 'LIKE' && isYourTurn(err)) {
        setHeld(item);
        return;
      }
      logger.warn(`reaction failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
      reload();
    } finally {
      setBusy(null);
    }
  };

  const takeBack = async (pass: PassUndo) => {
    setUndoing(true);
    try {
      await matchmakingApi.undoPass(pass.memberId);
      forgetPass();
      setUndo(null);
      reload();
      invalidate(queryKeys.introductions);
    } catch (err) {
      logger.warn(`undo failed: ${describeError(err)}`);
      toast.error(t('match.undoFailed'));
      setUndo(null);
    } finally {
      setUndoing(false);
    }
  };

  const tile = (item: LikeItem, from: Tab) => {
    const m = item.member;
    const c = item.like.comment;
    // What was liked: a photo and an answer of the caller's own profile for a like received, of
    // the member's for one sent.
    const owner = from === 'received' ? me : m;
    const likedAnswer = c?.answer != null ? answerText(owner, c.answer) : null;
    const about = c == null ? null : c.photoName != null ? t(from === 'received' ? 'match.likes.onYourPhoto' : 'match.likes.onTheirPhoto') : t(from === 'received' ? 'match.likes.onAnswer' : 'match.likes.onTheirAnswer', { question: t(answerKey(c.answer ?? '')) });
    return (
      <li key={m.memberId} data-testid="like-item" data-member-id={m.memberId}>
        <article className="like-tile" aria-labelledby={`like-${from}-${m.memberId}`}>
          <a
            className="like-tile-link"
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
              <h2 id={`like-${from}-${m.memberId}`} data-testid="member-nickname">{m.nickname}</h2>
              <small>{ageAndCity(t, cat, m)}</small>
            </div>
          </a>
          {c != null ? (
            <div className="like-about" data-testid="like-about">
              <small>{about}</small>
              {c.photoName != null ? (
                <Image src={c.photoName} alt={t(from === 'received' ? 'match.likes.yourPhotoAlt' : 'match.likes.theirPhotoAlt', { name: m.nickname })} width={48} height={64} className="like-about-photo" />
              ) : likedAnswer !== null ? (
                <blockquote className="like-about-answer" data-testid="like-about-answer">{likedAnswer}</blockquote>
              ) : null}
              <q data-testid="like-comment-text">{c.text}</q>
            </div>
          ) : null}
          {from === 'received' ? (
            <div className="like-tile-actions">
              <Reactions name={m.nickname} reaction={null} busy={busy !== null} onLike={() => void answer(item, 'LIKE')} onPass={() => void answer(item, 'PASS')} />
            </div>
          ) : null}
        </article>
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
          <ul className="like-grid" ref={grid} data-testid={`likes-${tab}`}>
            {shown.map((item) => tile(item, tab))}
          </ul>
        )}
      </div>
      {undo !== null ? (
        <UndoBar
          key={undo.memberId}
          text={t('match.passedName', { name: undo.name })}
          until={undo.until}
          busy={undoing}
          onUndo={() => void takeBack(undo)}
          onExpire={() => {
            forgetPass();
            setUndo(null);
          }}
        />
      ) : null}
      <ItsAMatch match={matched} onClose={() => setMatched(null)} returnFocus={() => grid.current?.querySelector<HTMLElement>('[data-testid="like"]') ?? document.getElementById('likes-tab-received')} />
      <YourTurnSheet
        open={held !== null}
        onClose={() => setHeld(null)}
        onReady={() => {
          if (held) void answer(held, 'LIKE');
        }}
        returnFocus={() => grid.current?.querySelector<HTMLElement>('[data-testid="like"]') ?? document.getElementById('likes-tab-received')}
      />
      <BottomNav current="likes" badges={{ likes: lists?.received.length ?? 0 }} />
    </section>
  );
}
