import { useCallback, useRef, useState, type ComponentType } from 'react';
import { Ban, ChevronLeft, CircleHelp, EllipsisVertical, Flag, HeartCrack, MapPin, UserRound } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { Image } from '@/components/image';
import type { MatchItem } from '@/features/matchmaking/api/matchmaking-api';
import { SafetyDialogs, type SafetyKind } from '@/features/matchmaking/components/safety-actions';
import { ShareDateSheet } from '@/features/matchmaking/components/share-date-sheet';

/** The menu's safety actions, the ones that end the conversation in red. */
const SAFETY: readonly { kind: SafetyKind; Icon: ComponentType<{ 'aria-hidden': 'true' }>; danger: boolean }[] = [
  { kind: 'report', Icon: Flag, danger: false },
  { kind: 'block', Icon: Ban, danger: true },
  { kind: 'unmatch', Icon: HeartCrack, danger: true },
];

/** A conversation's header: back to the matches, the other member's photo and name (a tap opens
 *  their profile), and a menu one tap away with their profile, "Share my date" (where and when, to
 *  one LINE friend), the safety tips, Report, Block and Unmatch (each confirmed, saying what
 *  happens). */
export function ChatHeader({ match, ended, onEnded }: { match: MatchItem | null; ended: boolean; onEnded: () => void }) {
  const t = useT();
  const sheet = useRef<HTMLDialogElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const [safety, setSafety] = useState<SafetyKind | null>(null);
  const [sharing, setSharing] = useState(false);
  const member = match?.member;
  const photo = member?.photoNameList[0];
  const profile = member ? `/member?id=${member.memberId}` : null;

  const closeMenu = () => sheet.current?.close();
  const choose = (kind: SafetyKind) => {
    closeMenu();
    setSafety(kind);
  };
  const closeSafety = useCallback(() => setSafety(null), []);

  return (
    <header className="chat-head">
      <a
        className="mm-icon-btn"
        href="/matches"
        aria-label={t('match.backToMatches')}
        data-testid="chat-back"
        onClick={(e) => {
          e.preventDefault();
          void navigate('/matches');
        }}
      >
        <ChevronLeft aria-hidden="true" />
      </a>
      <button type="button" className="chat-who" data-testid="chat-who" disabled={!profile || ended} onClick={() => profile && void navigate(profile)} aria-label={member ? t('match.viewProfileOf', { name: member.nickname }) : undefined}>
        {photo ? <Image src={photo} alt="" width={36} height={36} /> : <span className="mm-no-photo" aria-hidden="true" />}
        <h1 id="chat-title" data-testid="chat-title">{member?.nickname ?? t('match.chat.titlePlain')}</h1>
      </button>
      {member && match && !ended ? (
        <>
          <button ref={menuButton} type="button" className="mm-icon-btn" aria-label={t('match.chat.menu', { name: member.nickname })} aria-haspopup="dialog" data-testid="chat-menu" onClick={() => sheet.current?.showModal()}>
            <EllipsisVertical aria-hidden="true" />
          </button>
          <dialog ref={sheet} className="sheet" aria-labelledby="chat-menu-title" data-testid="chat-menu-sheet" onClick={(e) => e.target === sheet.current && closeMenu()}>
            <h2 id="chat-menu-title">{member.nickname}</h2>
            <ul className="sheet-list">
              <li>
                <button type="button" data-testid="menu-profile" onClick={() => { closeMenu(); void navigate(`/member?id=${member.memberId}`); }}>
                  <UserRound aria-hidden="true" />
                  {t('match.view')}
                </button>
              </li>
              <li>
                <button type="button" data-testid="menu-share-date" onClick={() => { closeMenu(); setSharing(true); }}>
                  <MapPin aria-hidden="true" />
                  {t('match.shareDate.menu')}
                </button>
              </li>
              <li>
                <button type="button" data-testid="menu-help" onClick={() => { closeMenu(); void navigate('/help?topic=safety'); }}>
                  <CircleHelp aria-hidden="true" />
                  {t('match.chat.help')}
                </button>
              </li>
              {SAFETY.map(({ kind, Icon, danger }) => (
                <li key={kind}>
                  <button type="button" className={danger ? 'danger' : undefined} data-testid={`menu-${kind}`} onClick={() => choose(kind)}>
                    <Icon aria-hidden="true" />
                    {t(`match.${kind}`)}
                  </button>
                </li>
              ))}
              <li>
                <button type="button" onClick={closeMenu}>{t('match.cancel')}</button>
              </li>
            </ul>
          </dialog>
          <ShareDateSheet open={sharing} nickname={member.nickname} onClose={() => setSharing(false)} returnFocus={() => menuButton.current} />
          <SafetyDialogs
            memberId={member.memberId}
            name={member.nickname}
            matchId={match.matchId}
            open={safety}
            onClose={closeSafety}
            onDone={() => {
              setSafety(null);
              onEnded();
              void navigate('/matches', { replace: true });
            }}
          />
        </>
      ) : null}
    </header>
  );
}
