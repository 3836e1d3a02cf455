import { useEffect } from 'react';
import { useT } from '@/lib/i18n';
import { logger } from '@/lib/logger';

/** 404 'Page Not Found', anything else 'Internal Server Error'; crawlers and link-preview
 *  bots get no error page, the error is only logged. */
const BOT_UA = /bot|crawl|spider|slurp|facebookexternalhit|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|telegram|discord|slack|line-poker|lighthouse-crawler|preview/i;

export function isCrawler(userAgent: string): boolean {
  return BOT_UA.test(userAgent);
}

export function ErrorPage({ status, message }: { status: number; message?: string }) {
  const t = useT();
  const crawler = isCrawler(navigator.userAgent);
  useEffect(() => {
    if (crawler || status !== 404) logger.error(`error page ${status}: ${message ?? ''}`);
  }, [crawler, status, message]);
  if (crawler) return null;
  const is404 = status === 404;
  return (
    <section className="page error-page" aria-labelledby="error-title">
      <p className="error-status" aria-hidden="true">{status}</p>
      <h1 id="error-title">{is404 ? t('error.notFoundTitle') : t('error.internalTitle')}</h1>
      {message ? <p className="muted" data-testid="error-message">{message}</p> : null}
      <div className="actions">
        <a className="btn btn-primary" href="/">{t('error.backHome')}</a>
        {!is404 ? (
          <button type="button" className="btn" onClick={() => location.reload()}>{t('common.retry')}</button>
        ) : null}
      </div>
    </section>
  );
}
