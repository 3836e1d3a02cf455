import { useEffect, useRef, useState } from 'react';
import { cardPhoto } from 'virtual:core-rules';
import { useT } from '@/lib/i18n';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { invalidate, queryKeys, useQuery } from '@/lib/query';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { BottomNav } from '@/components/bottom-nav';
import { Image } from '@/components/image';
import { forgetFramePhoto, framePhoto } from '@/lib/frame-photo';
import { matchmakingApi, type Introduction, type Introductions } from '@/features/matchmaking/api/matchmaking-api';
import { ItsAMatch, type MatchNews } from '@/features/matchmaking/components/its-a-match';
import { LoadStatus } from '@/features/matchmaking/components/load-status';
import { Reactions } from '@/features/matchmaking/components/reactions';
import { TheirLike } from '@/features/matchmaking/components/their-like';
import { TodayEmpty } from '@/features/matchmaking/components/today-empty';
import { UndoBar } from '@/features/matchmaking/components/undo-bar';
import { Verified } from '@/features/matchmaking/components/verified';
import { YourTurnSheet, isYourTurn } from '@/features/matchmaking/components/your-turn-sheet';
import { ageAndCity, bandLabel, occupationTypeLabel } from '@/features/matchmaking/lib/member-facts';
import { forgetPass, pendingPass, rememberPass, type PassUndo } from '@/features/matchmaking/lib/pass-undo';
import '@/features/matchmaking/components/matchmaking.css';
import { matchmakingQueries } from '@/features/matchmaking/api/queries';


/** /today: today's introductions (the server's list, fixed for the Asia/Taipei day) as large
 *  cards, Like and Pass side by side; a pass takes the card away with Undo for 10 seconds (the
 *  server takes it back, so every tab agrees); "It's a match" when a like was answered. */
export default function TodayPage() {
  const t = useT();
  const cat = useCatalogues();
  const [state, reload, set] = useQuery(matchmakingQueries.introductions);
  // The first card's photo came with the page (lib/frame-photo): shown while the list loads.
  useEffect(() => {
    if (state.kind !== 'loading') forgetFramePhoto();
  }, [state.kind]);
  const [matched, setMatched] = useState<MatchNews | null>(null);
  // The card of the last match: "It's a match" gives it the focus back when it closes.
  const matchedCard = useRef<number | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const [resuming, setResuming] = useState(false);
  // A pass made here or on the profile page a moment ago.
  const [undo, setUndo] = useState<PassUndo | null>(pendingPass);
  const [undoing, setUndoing] = useState(false);
  // A like held for the conversations waiting on the member's reply: sent again once they may.
  const [held, setHeld] = useState<Introduction | null>(null);
  // Its card: the sheet gives the focus back to its Like when it closes.
  const heldCard = useRef<number | null>(null);

  const resume = async () => {
    setResuming(true);
    try {
      await matchmakingApi.resume();
      invalidate(queryKeys.pause);
      reload();
    } catch (err) {
      logger.warn(`resume failed: ${describeError(err)}`);
      toast.error(t('match.loadFailed'));
    } finally {
      setResuming(false);
    }
  };

  const react = async (intro: Introduction, kind: 'LIKE' | 'PASS') => {
    if (state.kind !== 'ok') return;
    const id = intro.member.memberId;
    setBusy(id);
    let matchId: number | null = null;
    try {
      if (kind === 'LIKE') {
        const liked = await matchmakingApi.like(id);
        if (liked.matched) {
          matchedCard.current = id;
          setMatched({ name: intro.member.nickname, photo: intro.member.photoNameList[0] ?? null, matchId: liked.matchId ?? null });
          invalidate(queryKeys.matches);
        }
        matchId = liked.matched ? (liked.matchId ?? null) : null;
      } else {
        await matchmakingApi.pass(id);
        setUndo(rememberPass(id, intro.member.nickname));
      }
      invalidate(queryKeys.likes);
      const list: Introductions = state.value;
      // As the server's next answer has it: a passed member leaves the list; a like waits for a
      // like back, or makes a match whose card offers only the chat.
      const answered = list.introductions.some((i) => i.member.memberId === id && i.offer === 'ANSWER');
      set({
        ...list,
        left: Math.max(0, list.left - (answered ? 1 : 0)),
        introductions: list.introductions
          .filter((i) => kind === 'LIKE' || i.member.memberId !== id)
          .map((i) =>
            i.member.memberId === id ? { ...i, reaction: kind, offer: matchId !== null ? 'CHAT' : 'WAITING', matchId } : i,
          ),
      });
    } catch (err) {
      if (kind === 'LIKE' && isYourTurn(err)) {
        heldCard.current = id;
        setHeld(intro);
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
      invalidate(queryKeys.likes);
    } catch (err) {
      logger.warn(`undo failed: ${describeError(err)}`);
      toast.error(t('match.undoFailed'));
      setUndo(null);
    } finally {
      setUndoing(false);
    }
  };

  const open = (id: number) => void navigate(`/member?id=${id}`);

  return (
    <section className="page mm-page with-bottom-nav" aria-labelledby="today-title">
      <header className="mm-head">
        <h1 id="today-title">{t('match.today.title')}</h1>
      </header>
      {state.kind === 'ok' && !state.value.pausedSince && state.value.introductions.length > 0 ? (
        <p className="mm-left" data-testid="today-left" data-left={state.value.left}>
          {t('match.today.left', { n: state.value.left })}
        </p>
      ) : null}
      {state.kind !== 'ok' ? (
        <LoadStatus state={state} onRetry={reload} photo={framePhoto()} />
      ) : state.value.pausedSince ? (
        <div className="card mm-paused" data-testid="today-paused">
          <h2>{t('match.today.pausedTitle')}</h2>
          <p className="muted">{t('match.today.paused')}</p>
          <button type="button" className="btn btn-primary" onClick={() => void resume()} disabled={resuming} data-testid="resume">
            {resuming ? t('common.processing') : t('match.today.resume')}
          </button>
        </div>
      ) : state.value.introductions.length === 0 ? (
        <TodayEmpty />
      ) : (
        <ul className="mm-list" ref={list} data-testid="introductions" data-day={state.value.day}>
          {state.value.introductions.map((intro) => {
            const m = intro.member;
            const photo = m.photoNameList[0];
            return (
              <li key={m.memberId} data-testid="introduction" data-member-id={m.memberId} data-reaction={intro.reaction ?? ''} data-offer={intro.offer}>
                <article className="intro-card" aria-labelledby={`intro-${m.memberId}`}>
                  <a
                    className="intro-photo"
                    href={`/member?id=${m.memberId}`}
                    data-testid="view-profile"
                    onClick={(e) => {
                      e.preventDefault();
                      open(m.memberId);
                    }}
                  >
                    {photo ? (
                      // The link is named by what it shows, "Kai 35 · Taipei City" (WCAG 2.5.3, label in
                      // name): the photo adds no words to it (the profile gives each photo its own).
                      // The renditions the server names in a returning member's page (kizuna-core's CARD_PHOTO):
                      // the first card's photo is the file the page's frame loaded.
                      <Image src={photo} alt="" width={cardPhoto.width} height={cardPhoto.height} widths={cardPhoto.widths} sizes={cardPhoto.sizes} loading="eager" />
                    ) : (
                      <div className="mm-no-photo">{t('match.noPhoto')}</div>
                    )}
                    <div className="intro-shade">
                      <h2 id={`intro-${m.memberId}`} data-testid="member-nickname">{m.nickname}</h2>
                      <p data-testid="member-age-city">{ageAndCity(t, cat, m)}</p>
                    </div>
                  </a>
                  <div className="intro-body">
                    {/* Right under the photo: on a small phone, Like and Pass come before the facts. */}
                    {intro.offer === 'DONE' ? (
                      <p className="muted reactions" data-testid="match-ended">{t('match.today.ended')}</p>
                    ) : (
                      <Reactions
                        name={m.nickname}
                        reaction={intro.reaction}
                        matchId={intro.offer === 'CHAT' ? intro.matchId : null}
                        busy={busy !== null}
                        onLike={() => void react(intro, 'LIKE')}
                        onPass={() => void react(intro, 'PASS')}
                      />
                    )}
                    <p className="muted" data-testid="member-band">{bandLabel(t, m.distanceBand)}</p>
                    <p>
                      {occupationTypeLabel(t, m.occupationType)} · {m.occupation}
                    </p>
                    {m.verifiedEmployer ? <Verified name={m.nickname} /> : null}
                    {intro.theirLike != null ? <TheirLike like={intro.theirLike} name={m.nickname} /> : null}
                  </div>
                </article>
              </li>
            );
          })}
        </ul>
      )}
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
      <ItsAMatch
        match={matched}
        onClose={() => setMatched(null)}
        returnFocus={() => list.current?.querySelector<HTMLElement>(`[data-member-id="${matchedCard.current}"] [data-testid="open-chat"]`)}
      />
      <YourTurnSheet
        open={held !== null}
        onClose={() => setHeld(null)}
        onReady={() => {
          if (held) void react(held, 'LIKE');
        }}
        returnFocus={() => list.current?.querySelector<HTMLElement>(`[data-member-id="${heldCard.current}"] [data-testid="like"]`)}
      />
      <BottomNav current="today" />
    </section>
  );
}
