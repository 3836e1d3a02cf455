import type { ComponentType, MouseEvent } from 'react';
import { CircleUser, Heart, MessageCircle, Sun } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { useLikesBadge, useMatchesBadge } from '@/lib/matches-badge';
import '@/components/bottom-nav.css';

/** The bottom navigation of APPROVED members: Today, Likes, Matches, Profile, as inline SVG icons
 *  (no icon font to download, nothing the Content-Security-Policy has to allow). */
export type BottomTab = 'today' | 'likes' | 'matches' | 'profile';

const TABS: readonly { tab: BottomTab; path: string; Icon: ComponentType<{ className?: string }> }[] = [
  { tab: 'today', path: '/today', Icon: Sun },
  { tab: 'likes', path: '/likes', Icon: Heart },
  { tab: 'matches', path: '/matches', Icon: MessageCircle },
  { tab: 'profile', path: '/profile', Icon: CircleUser },
];

/** `badges`: a count shown on a tab; the Matches tab counts the matches with something new or
 *  unread, and the Likes tab the likes waiting for an answer, by themselves unless the screen
 *  gives the count (the screen that has the list). */
export function BottomNav({ current, badges = {} }: { current: BottomTab | null; badges?: Partial<Record<BottomTab, number>> }) {
  const t = useT();
  const fetched = useMatchesBadge(badges.matches !== undefined);
  const likes = useLikesBadge(badges.likes !== undefined);
  const counts: Partial<Record<BottomTab, number>> = { matches: fetched, likes, ...badges };
  const go = (e: MouseEvent<HTMLAnchorElement>, path: string) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    void navigate(path);
  };
  return (
    <nav className="bottom-nav" aria-label={t('match.nav.label')} data-testid="bottom-nav">
      {TABS.map(({ tab, path, Icon }) => {
        const count = counts[tab] ?? 0;
        return (
          <a key={tab} href={path} data-tab={tab} aria-current={current === tab ? 'page' : undefined} onClick={(e) => go(e, path)}>
            <span className="bottom-nav-icon">
              <Icon className="bottom-nav-svg" />
              {count > 0 ? (
                <span className="bottom-nav-badge" data-testid={`nav-badge-${tab}`}>
                  {count > 99 ? '99+' : count}
                </span>
              ) : null}
            </span>
            <span className="bottom-nav-label">
              {t(`match.nav.${tab}`)}
              {count > 0 ? <span className="sr-only">{t('match.nav.badge', { n: count })}</span> : null}
            </span>
          </a>
        );
      })}
    </nav>
  );
}
