import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { boot } from '@/app/boot';
import '@/styles.css';

// The build preloads the entry stylesheet instead of blocking the first paint on it (vite.config.ts,
// nonBlockingCss); it applies from here, before the app renders anything it styles.
for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="style"]')) link.rel = 'stylesheet';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void boot();
