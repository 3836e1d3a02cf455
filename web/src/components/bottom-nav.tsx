import type { MouseEvent } from 'react';
import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import '@/components/bottom-nav.css';

/** The bottom navigation of APPROVED members (issue 15): Today, Matches, Profile. */
export type BottomTab = 'today' | 'matches' | 'profile';

const TABS: readonly { tab: BottomTab; path: string; icon: string }[] = [
  { tab: 'today', path: '/today', icon: '☀' },
  { tab: 'matches', path: '/matches', icon: '♥' },
  { tab: 'profile', path: '/profile', icon: '☺' },
];

export function BottomNav({ current }: { current: BottomTab | null }) {
  const t = useT();
  const go = (e: MouseEvent<HTMLAnchorElement>, path: string) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    void navigate(path);
  };
  return (
    <nav className="bottom-nav" aria-label={t('match.nav.label')} data-testid="bottom-nav">
      {TABS.map(({ tab, path, icon }) => (
        <a key={tab} href={path} data-tab={tab} aria-current={current === tab ? 'page' : undefined} onClick={(e) => go(e, path)}>
          <span aria-hidden="true">{icon}</span>
          {t(`match.nav.${tab}`)}
        </a>
      ))}
    </nav>
  );
}
