import { beforeAll, describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { quietMatchExpiryDays } from 'virtual:core-rules';
import { englishScreens, renderScreen } from '@/test/render';
import { extendMessages } from '@/lib/i18n';
import { ExpiredMatches } from '@/features/matchmaking/components/expired-matches';

beforeAll(async () => {
  await englishScreens();
  await extendMessages({
    'zh-TW': () => import('@/features/matchmaking/locales/zh-TW.json'),
    en: () => import('@/features/matchmaking/locales/en.json'),
    ja: () => import('@/features/matchmaking/locales/ja.json'),
  });
});

describe('ExpiredMatches', () => {
  it('lists each by nickname with a line saying it expired, not that anyone unmatched, and nothing to open', () => {
    expect(quietMatchExpiryDays).toBe(7);
    renderScreen(
      <ExpiredMatches
        matches={[
          { matchId: 3, matchedAt: 1, expiredAt: 2, nickname: 'Kai' },
          { matchId: 4, matchedAt: 1, expiredAt: 3, nickname: 'Leo' },
        ]}
        when={(secs) => `t${secs}`}
      />,
    );
    const region = screen.getByRole('region', { name: 'Closed without a message' });
    expect(screen.getAllByTestId('expired-nickname').map((n) => n.textContent)).toEqual(['Kai', 'Leo']);
    for (const line of screen.getAllByTestId('expired-line')) expect(line.textContent).toBe('Expired: neither of you wrote within 7 days.');
    expect(region.textContent).not.toMatch(/unmatch/i);
    expect(region.querySelectorAll('a, button')).toHaveLength(0);
  });

  it('shows nothing when none expired', () => {
    const { container } = renderScreen(<ExpiredMatches matches={[]} when={String} />);
    expect(container.textContent).toBe('');
  });
});
