import { t } from '@/lib/i18n';
import { toast } from '@/lib/toast';
import { logger } from '@/lib/logger';

/** New app versions: poll the build manifest; on a new build, offer a reload. */

export const VERSION_POLL_MS = 60 * 60 * 1000;
const MIN_GAP_MS = 60 * 1000;

let lastCheck = 0;
let notified = false;

export async function checkForNewBuild(fetchImpl: typeof fetch = fetch): Promise<boolean> {
  lastCheck = Date.now();
  try {
    const res = await fetchImpl(`/builds/latest.json?t=${lastCheck}`, { cache: 'no-store' });
    if (!res.ok) return false;
    const body = (await res.json()) as { id?: string };
    return typeof body.id === 'string' && body.id !== __BUILD_ID__;
  } catch (err) {
    logger.debug(`build manifest check failed: ${String(err)}`);
    return false;
  }
}

async function checkAndNotify() {
  if (notified) return;
  if (await checkForNewBuild()) {
    notified = true;
    toast.show(t('app.newVersion'), {
      duration: 0,
      action: { label: t('app.reload'), onClick: () => location.reload() },
    });
  }
}

export function startVersionPolling(): void {
  if (import.meta.env.DEV) return;
  setInterval(() => void checkAndNotify(), VERSION_POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && Date.now() - lastCheck > MIN_GAP_MS) void checkAndNotify();
  });
}
