import { beforeAll, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { extendMessages } from '@/lib/i18n';
import { englishScreens, renderScreen } from '@/test/render';
import { FileDiff, ResemblingPhotos } from '@/features/review/components/review-detail';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

/** Each thumbnail's state and which file it draws. */
function states() {
  const name = (html: string) => (html.includes(A) ? 'A' : html.includes(B) ? 'B' : html.includes(C) ? 'C' : '?');
  return screen.getAllByRole('listitem').map((li) => [li.dataset.state, name(within(li).getByRole('img').outerHTML)]);
}

describe('FileDiff', () => {
  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
  });

  it('shows the new order marked new or kept, then what was dropped, as pictures', () => {
    renderScreen(<FileDiff field="photoNameList" before={[A, B]} after={[C, A]} />);
    expect(states()).toEqual([['added', 'C'], ['kept', 'A'], ['removed', 'B']]);
    expect(screen.getByText('Removed')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Removed photo, was 2' })).toBeTruthy();
    expect(screen.queryByText(A)).toBeNull();
  });

  it('compares a single file as a list of one, and an empty side as none', () => {
    renderScreen(<FileDiff field="verifyTempFileName" before="" after={B} />);
    expect(states()).toEqual([['added', 'B']]);
  });
});

describe('ResemblingPhotos', () => {
  beforeAll(async () => {
    await englishScreens();
    await extendMessages({
      'zh-TW': () => import('@/features/review/locales/zh-TW.json'),
      en: () => import('@/features/review/locales/en.json'),
      ja: () => import('@/features/review/locales/ja.json'),
    });
  });

  it('links the other member with their status, and names a suspended member who left', () => {
    renderScreen(
      <ResemblingPhotos
        items={[
          { photo: A, otherPhoto: B, other: { profileId: 7, nickname: 'Ren', status: 'SUSPENDED' }, otherLeftSuspended: false, distance: 3 },
          { photo: C, otherPhoto: null, other: null, otherLeftSuspended: true, distance: 0 },
        ]}
      />,
    );
    const link = screen.getByRole('link', { name: 'Ren' });
    expect(link.getAttribute('href')).toBe('/review?profile=7');
    expect(screen.getByText('Suspended')).toBeTruthy();
    expect(screen.getByText('A suspended member who has left')).toBeTruthy();
    expect(screen.getByText('3 of 64 bits differ')).toBeTruthy();
    expect(screen.getAllByRole('img')).toHaveLength(3);
  });

  it('shows nothing when no photo resembles another', () => {
    const { container } = renderScreen(<ResemblingPhotos items={[]} />);
    expect(container.textContent).toBe('');
  });
});
