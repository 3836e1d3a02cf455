import { useState } from 'react';
import { ChevronLeft } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { invalidate, queryKeys, update, useQuery } from '@/lib/query';
import { navigate, useShownSearch } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { ApiError } from '@/lib/api-client';
import { BottomNav } from '@/components/bottom-nav';
import { matchmakingApi, type Introductions, type LikeComment, type MemberProfile } from '@/features/matchmaking/api/matchmaking-api';
import { ProfileBody } from '@/features/matchmaking/components/profile-body';
import { PhotoViewer } from '@/features/matchmaking/components/photo-viewer';
import { Reactions } from '@/features/matchmaking/components/reactions';
import { LikeSheet, type LikedPart } from '@/features/matchmaking/components/like-sheet';
import { TheirLike } from '@/features/matchmaking/components/their-like';
import { ItsAMatch, type MatchNews } from '@/features/matchmaking/components/its-a-match';
import { YourTurnSheet, isYourTurn } from '@/features/matchmaking/components/your-turn-sheet';
import { SafetyActions } from '@/features/matchmaking/components/safety-actions';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { memberIdFrom } from '@/features/matchmaking/lib/member-facts';
import { rememberPass } from '@/features/matchmaking/lib/pass-undo';
import '@/features/matchmaking/components/matchmaking.css';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';

/** /member?id=…: one of the caller's introductions or matches as a dating profile (large photos
 *  and a full-screen viewer, the answers, the basics), with Like and Pass one tap away, a like on
 *  one photo or answer with a comment, and Block and Report. Anyone else is E003 on the server,
 *  shown as "no longer available". */
export default function MemberPage() {
  const t = useT();
  const cat = useCatalogues();
  // The query of the screen on display, not the browser's: Back moves `location` before this
  // screen leaves, and reading it then flashed "no longer available" (and asked for nothing).
  const id = memberIdFrom(useShownSearch());
  const [state, reload, set] = useQuery(id === null ? null : matchmakingQueries.member(id));
  const [viewing, setViewing] = useState<number | null>(null);
  const [liking, setLiking] = useState<LikedPart | null>(null);
  const [busy, setBusy] = useState(false);
  const [matched, setMatched] = useState<MatchNews | null>(null);
  // A like held for the conversations waiting on the member's reply, with its comment.
  const [held, setHeld] = useState<{ page: MemberProfile; comment?: LikeComment } | null>(null);

  const like = async (page: MemberProfile, comment?: LikeComment) => {
    setBusy(true);
    try {
      const liked = await matchmakingApi.like(page.member.memberId, comment);
      setLiking(null);
      set({ ...page, reaction: 'LIKE', matchId: liked.matchId ?? null });
      if (liked.matched) setMatched({ name: page.member.nickname, photo: page.member.photoNameList[0] ?? null, matchId: liked.matchId ?? null });
      for (const key of [queryKeys.introductions, queryKeys.likes, queryKeys.matches]) invalidate(key);
    } catch (err) {
      if (isYourTurn(err)) {
        setLiking(null);
        setHeld({ page, comment });
        return;
      }
      logger.warn(`like failed: ${describeError(err)}`);
      toast.error(err instanceof ApiError && err.status === 422 ? t('match.likeSheet.invalid') : t('match.loadFailed'));
      if (!(err instanceof ApiError && err.status === 422)) reload();
    } finally {
      setBusy(false);
    }
  };

  const pass = async (page: MemberProfile) => {
    setBusy(true);
    try {
      await matchmakingApi.pass(page.member.memberId);
      // /today offers the undo: the card has left the list there, as the server has it.
      const gone = page.member.memberId;
      update<Introductions>(queryKeys.introductions, (list) => ({ ...list, introductions: list.introductions.filter((i) => i.member.memberId !== gone) }));
      invalidate(queryKeys.likes);
      rememberPass(gone, page.member.nickname);
      await navigate('/today', { replace: true });
    } catch (err) {
      logger.warn(`pass failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
      setBusy(false);
    }
  };

  const page = state.kind === 'ok' ? state.value : null;
  // After a like the heart or the Like button that was pressed is gone: the focus goes to what
  // took its place at the foot of the screen ("Send a message" once matched, "You liked …").
  const dockAction = () => document.querySelector<HTMLElement>('.action-dock a, .action-dock [data-testid="liked"]');
  const member = page?.member;
  return (
    <section className="page mm-page profile-page with-bottom-nav" aria-labelledby="member-title">
      <header className="mm-head">
        <button type="button" className="mm-icon-btn" onClick={() => history.back()} aria-label={t('match.back')} data-testid="back">
          <ChevronLeft aria-hidden="true" />
        </button>
        <h1 id="member-title">{member ? member.nickname : t('match.nav.profile')}</h1>
      </header>
      {page === null || member === undefined ? (
        <LoadStatus state={state} onRetry={reload} />
      ) : (
        <article data-testid="member-profile" data-member-id={member.memberId} data-reaction={page.reaction ?? ''}>
          <ProfileBody
            member={member}
            cat={cat}
            onOpenPhoto={setViewing}
            onLikePart={page.reaction == null && page.matchId == null ? setLiking : undefined}
            top={page.theirLike != null ? <TheirLike like={page.theirLike} name={member.nickname} /> : null}
          />
          <SafetyActions memberId={member.memberId} name={member.nickname} onDone={() => void navigate('/matches', { replace: true })} />
          <div className="action-dock">
            <Reactions name={member.nickname} reaction={page.reaction} matchId={page.matchId} busy={busy} onLike={() => void like(page)} onPass={() => void pass(page)} />
          </div>
          <PhotoViewer photos={member.photoNameList} name={member.nickname} start={viewing} onClose={() => setViewing(null)} />
          <LikeSheet
            part={liking}
            name={member.nickname}
            busy={busy}
            onClose={() => setLiking(null)}
            returnFocus={dockAction}
            onSend={(text) => {
              if (!liking) return;
              const on = 'photoName' in liking ? { photoName: liking.photoName } : { answer: liking.answer };
              void like(page, text ? { text, ...on } : undefined);
            }}
          />
        </article>
      )}
      <ItsAMatch match={matched} onClose={() => setMatched(null)} returnFocus={dockAction} />
      <YourTurnSheet
        open={held !== null}
        onClose={() => setHeld(null)}
        onReady={() => {
          if (held) void like(held.page, held.comment);
        }}
        returnFocus={dockAction}
      />
      <BottomNav current={null} />
    </section>
  );
}
