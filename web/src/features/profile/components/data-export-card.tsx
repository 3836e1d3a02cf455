import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError, logger } from '@/lib/logger';
import { useQuery } from '@/lib/query';
import { dataExportApi } from '@/features/profile/api/profile-api';
import { profileQueries } from '@/features/profile/api/queries';

/** How often the card asks whether the copy is ready, and for how long at most. */
const POLL_MS = 1000;
const POLL_FOR_MS = 120_000;

type Stage =
  | { kind: 'idle' }
  | { kind: 'preparing'; link: string; since: number }
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
  // Asked every second while the copy is being prepared, under a key of this request's own so
  // that an earlier request's answer is never taken for this one's; no more once it is decided.
  const preparing = stage.kind === 'preparing' && stage.link ? stage : null;
  const [status] = useQuery(preparing ? profileQueries.dataExport(preparing.since) : null, {
    refreshInterval: (answer) => (answer?.status === 'READY' || answer?.status === 'FAILED' ? 0 : POLL_MS),
  });
  const answer = preparing && status.kind === 'ok' ? status.value : null;
  const shown: Stage = !preparing || !answer
    ? stage
    : answer.status === 'READY'
      ? { kind: 'ready', link: preparing.link, sizeBytes: answer.sizeBytes }
      : answer.status === 'FAILED'
        ? { kind: 'problem', message: t('profile.exportFailed') }
        : stage;

  // Not ready within the bound (or every status request failed): the member is told, asking ends.
  const deadline = shown.kind === 'preparing' && shown.link ? shown.since + POLL_FOR_MS : null;
  useEffect(() => {
    if (deadline === null) return;
    const timer = window.setTimeout(
      () => setStage({ kind: 'problem', message: t('profile.exportFailed') }),
      Math.max(0, deadline - Date.now()),
    );
    return () => window.clearTimeout(timer);
  }, [deadline, t]);

  const ask = async () => {
    setStage({ kind: 'preparing', link: '', since: Date.now() });
    try {
      const asked = await dataExportApi.request();
      setStage(asked.status === 'READY'
        ? { kind: 'ready', link: asked.downloadUrl, sizeBytes: asked.sizeBytes }
        : { kind: 'preparing', link: asked.downloadUrl, since: Date.now() });
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
      {shown.kind === 'ready' ? (
        <>
          <a className="btn btn-primary" href={shown.link} download data-testid="data-export-download">
            {t('profile.exportDownload')}
          </a>
          <p className="muted" role="status" data-testid="data-export-ready">
            {shown.sizeBytes ? `${megabytes(shown.sizeBytes)} · ` : ''}{t('profile.exportReady')}
          </p>
        </>
      ) : shown.kind === 'preparing' ? (
        <p className="notice" role="status" data-testid="data-export-preparing">{t('profile.exportPreparing')}</p>
      ) : (
        <>
          {shown.kind === 'problem' ? <p className="notice notice-error" role="alert">{shown.message}</p> : null}
          <button type="button" className="btn" onClick={() => void ask()} data-testid="data-export">
            {t('profile.export')}
          </button>
        </>
      )}
    </div>
  );
}
