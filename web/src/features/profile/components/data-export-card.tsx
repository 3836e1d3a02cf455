import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { dataExportApi } from '@/features/profile/api/profile-api';

/** How often the card asks whether the copy is ready, and for how long at most. */
const POLL_MS = 1000;
const POLL_TRIES = 120;

type Stage =
  | { kind: 'idle' }
  | { kind: 'preparing'; link: string }
  | { kind: 'ready'; link: string; sizeBytes?: number | null }
  | { kind: 'problem'; message: string };

function megabytes(bytes: number | null | undefined): string {
  return `${Math.max(0.1, (bytes ?? 0) / 1_000_000).toFixed(1)} MB`;
}

/** "Download my data": a copy of everything the service holds about the member, prepared on the
 *  server and downloaded through a short-lived link. */
export function DataExportCard() {
  const t = useT();
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });

  useEffect(() => {
    if (stage.kind !== 'preparing') return;
    let tries = 0;
    let stopped = false;
    const timer = window.setInterval(() => {
      tries += 1;
      dataExportApi.status().then((status) => {
        if (stopped) return;
        if (status?.status === 'READY') {
          setStage({ kind: 'ready', link: stage.link, sizeBytes: status.sizeBytes });
        } else if (status?.status === 'FAILED' || tries >= POLL_TRIES) {
          setStage({ kind: 'problem', message: t('profile.exportFailed') });
        }
      }).catch((err: unknown) => logger.warn(`data export status failed: ${describeError(err)}`));
    }, POLL_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [stage, t]);

  const ask = async () => {
    setStage({ kind: 'preparing', link: '' });
    try {
      const asked = await dataExportApi.request();
      setStage(asked.status === 'READY'
        ? { kind: 'ready', link: asked.downloadUrl, sizeBytes: asked.sizeBytes }
        : { kind: 'preparing', link: asked.downloadUrl });
    } catch (err) {
      logger.warn(`data export request failed: ${describeError(err)}`);
      const tooMany = err instanceof ApiError && err.status === 429;
      setStage({ kind: 'problem', message: tooMany ? t('profile.exportTooMany') : t('profile.exportFailed') });
    }
  };

  return (
    <div className="card data-export-card" data-testid="data-export-card">
      <h2>{t('profile.exportTitle')}</h2>
      <p className="muted">{t('profile.exportHelp')}</p>
      {stage.kind === 'ready' ? (
        <>
          <a className="btn btn-primary" href={stage.link} download data-testid="data-export-download">
            {t('profile.exportDownload')}
          </a>
          <p className="muted" role="status" data-testid="data-export-ready">
            {stage.sizeBytes ? `${megabytes(stage.sizeBytes)} · ` : ''}{t('profile.exportReady')}
          </p>
        </>
      ) : stage.kind === 'preparing' ? (
        <p className="notice" role="status" data-testid="data-export-preparing">{t('profile.exportPreparing')}</p>
      ) : (
        <>
          {stage.kind === 'problem' ? <p className="notice notice-error" role="alert">{stage.message}</p> : null}
          <button type="button" className="btn" onClick={() => void ask()} data-testid="data-export">
            {t('profile.export')}
          </button>
        </>
      )}
    </div>
  );
}
