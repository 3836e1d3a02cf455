import type { ReactElement, ReactNode } from 'react';
import { render } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { completeLocale, setLocale } from '@/lib/i18n';
import { setLogShipper } from '@/lib/logger';

/** The app's messages in English (the whole catalogue) and no log shipping: what a screen's
 *  unit test reads its texts in. */
export async function englishScreens(): Promise<void> {
  await setLocale('en');
  await completeLocale();
  setLogShipper(() => {});
}

/** Testing Library's render with a data cache of its own: no answer of one test reaches another. */
export function renderScreen(ui: ReactElement) {
  const wrapper = ({ children }: { children: ReactNode }) => (
    <SWRConfig value={{ provider: () => new Map() }}>{children}</SWRConfig>
  );
  return render(ui, { wrapper });
}
