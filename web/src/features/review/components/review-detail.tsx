import { useState } from 'react';
import { formatDateTime, hasMessage, useT, type TFunction } from '@/lib/i18n';
import { ApiError } from '@/lib/api-client';
import { describeError } from '@/lib/logger';
import { Image } from '@/components/image';
import { Spinner } from '@/components/spinner';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { useQuery } from '@/lib/query';
import { showValue } from '@/features/review/lib/profile-values';
import { reviewApi, type CodeCatalogues, type ProfilePayload, type ReviewView } from '@/features/review/api/review-api';
import { reviewQueries } from '@/features/review/api/queries';
import { DecisionForm } from '@/features/review/components/decision-form';

/** Fields never shown as profile rows: the account is the LINE id, photos and the verification have
 *  their own sections. */
const HIDDEN = new Set(['account', 'password', 'photoNameList', 'verifyTempFileName', 'verifyMethod', 'companyEmail', 'reviewLink', 'verifyDescription', 'longitude']);

/** An OpenStreetMap link to the point a member gave (reviewers may see it; no member does). */
export function mapLink(latitude: number, longitude: number): string {
  const lat = latitude.toFixed(5);
  const lon = longitude.toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=15/${lat}/${lon}`;
}

/** A history entry's step in the reviewer's language: the action (a reviewer's, or the member's
 *  resubmission), or for the first submission the status it led to. */
export function historyLabel(t: TFunction, entry: { action?: string | null; toStatus: string }): string {
  const key = entry.action ? `console.history.${entry.action}` : `console.history.to.${entry.toStatus}`;
  return hasMessage(key) ? t(key) : (entry.action ?? entry.toStatus);
}

/** Fields that name stored files: a reviewer compares the pictures, not their ids. */
const FILE_FIELDS = new Set(['photoNameList', 'verifyTempFileName']);

function fileIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/** Before → after of a file field as thumbnails: the new order, each marked new or kept, then what
 *  was dropped. The reviewer may fetch both sides: the approved version still claims the old ones. */
export function FileDiff({ field, before, after }: { field: string; before: unknown; after: unknown }) {
  const t = useT();
  const old = fileIds(before);
  const now = fileIds(after);
  const dropped = old.filter((id) => !now.includes(id));
  const fit = field === 'photoNameList' ? 'cover' : 'contain';
  const item = (id: string, i: number, state: 'added' | 'kept' | 'removed') => (
    <li key={`${state}-${id}`} className={`file-diff-item file-diff-${state}`} data-state={state}>
      <Image src={id} alt={t(state === 'removed' ? 'console.diffRemovedAlt' : 'console.diffNowAlt', { n: i + 1 })} width={96} height={128} fit={fit} />
      <span className="file-diff-tag">{t(`console.diff.${state}`)}</span>
    </li>
  );
  return (
    <ul className="file-diff" data-testid={`file-diff-${field}`}>
      {now.map((id, i) => item(id, i, old.includes(id) ? 'kept' : 'added'))}
      {dropped.map((id) => item(id, old.indexOf(id), 'removed'))}
    </ul>
  );
}

function label(t: TFunction, field: string): string {
  const key = `field.${field}`;
  return hasMessage(key) ? t(key) : field;
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ') : '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function when(secs: number): string {
  return formatDateTime(secs);
}

/** The photos under review that resemble another member's (reviewers only): each beside the other
 * member's photo, with that member linked and their status, or "a suspended member who has left". */
export function ResemblingPhotos({ items }: { items: ReviewView['resembling'] }) {
  const t = useT();
  if (!items.length) return null;
  return (
    <div className="card" data-testid="resembling">
      <h3>{t('console.resembling')}</h3>
      <p className="muted">{t('console.resemblingHelp')}</p>
      <ul className="resembling-list">
        {items.map((r, i) => (
          <li key={`${r.photo}:${r.otherPhoto ?? 'left'}:${i}`} data-testid="resembling-photo" data-other={r.other?.profileId ?? 'left'}>
            <Image src={r.photo} alt={t('console.resemblingThis')} width={80} height={107} />
            {r.otherPhoto ? <Image src={r.otherPhoto} alt={t('console.resemblingOther')} width={80} height={107} /> : null}
            <span>
              {r.other ? (
                <>
                  <a href={`/review?profile=${r.other.profileId}`} data-testid="resembling-member">{r.other.nickname ?? `#${r.other.profileId}`}</a>
                  {' · '}<strong data-testid="resembling-status">{t(`review.${r.other.status}`)}</strong>
                </>
              ) : (
                <strong data-testid="resembling-status">{t('console.resemblingLeft')}</strong>
              )}
              {' · '}<span className="muted">{t('console.resemblingDistance', { n: r.distance })}</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ReviewDetail({ profileId, codes, onDecided }: { profileId: number; codes: CodeCatalogues | null; onDecided: () => void }) {
  const t = useT();
  const [state, reload, set] = useQuery(reviewQueries.profile(profileId));
  const [releaseNote, setReleaseNote] = useState<string | null>(null);
  // The core's catalogues label choices, tags and conditions; until they load, the wire values show.
  const cat = useCatalogues();

  if (state.kind === 'gone') return <p className="notice notice-error" role="alert">{t('console.notFound')}</p>;
  if (state.kind === 'forbidden') return <p className="notice notice-error" role="alert">{t('console.refused')}</p>;
  if (state.kind === 'failed') {
    const { error } = state;
    return <p className="notice notice-error" role="alert">{error instanceof ApiError ? error.causeText : describeError(error)}</p>;
  }
  if (state.kind === 'loading') return <Spinner />;
  const { view } = state.value;
  const claimNote = releaseNote ?? state.value.claimNote;

  const changed = new Set(view.changedFields);
  const heldByOther = Boolean(view.claim && !view.claim.mine);
  const release = async () => {
    try {
      await reviewApi.release(profileId);
      // Not reloaded: opening claims, and the reviewer just let go.
      setReleaseNote(null);
      set({ view: { ...view, claim: null }, claimNote: null });
      onDecided();
    } catch (err) {
      setReleaseNote(err instanceof ApiError ? err.causeText : describeError(err));
    }
  };

  return (
    <article className="review-detail" data-testid="review-detail" data-profile-id={view.profileId} data-status={view.status} data-version={view.version} data-revision={view.revision ?? ''}>
      <div className="card">
        <div className="review-row">
          <h2>{show(view.profile.nickname)} <span className="muted">#{view.profileId}</span></h2>
          <span className={`badge badge-${view.status.toLowerCase()}`} data-testid="review-detail-status">{t(`review.${view.status}`)}</span>
        </div>
        <p className="muted">
          {t('console.submitted', { at: when(view.submittedAt), n: view.submission })}
          {' · '}
          {t('console.memberLocale', { locale: view.member.locale })}
          {view.member.friend === false ? ` · ${t('console.notFriend')}` : ''}
        </p>
        {view.claim ? (
          <p className={`notice${view.claim.mine ? ' notice-ok' : ' notice-error'}`} data-testid="claim-state" data-mine={view.claim.mine}>
            {view.claim.mine ? t('console.claimedByMe', { until: when(view.claim.expiresAt) }) : t('console.claimedByOther', { until: when(view.claim.expiresAt) })}
            {view.claim.mine ? <button type="button" className="link-button" onClick={() => void release()}>{t('console.release')}</button> : null}
          </p>
        ) : null}
        {claimNote ? <p className="notice notice-error" role="alert">{claimNote}</p> : null}
      </div>

      {view.revision != null ? (
        <p className="notice" data-testid="revision-notice" data-revision={view.revision}>{t('console.revisionNotice', { n: view.revision })}</p>
      ) : null}
      {view.resubmission || view.revision != null ? (
        <div className="card" data-testid="changed-fields">
          <h3>{t(view.revision != null ? 'console.revisionChanged' : 'console.changed')}</h3>
          {view.changedFields.length ? (
            <dl className="summary-list">
              {view.changedFields.map((f) => (
                <div key={f} className="changed-row" data-field={f}>
                  <dt>{label(t, f)}</dt>
                  {FILE_FIELDS.has(f) ? (
                    <dd><FileDiff field={f} before={fieldOf(view.previousProfile, f)} after={fieldOf(view.profile, f)} /></dd>
                  ) : (
                    <dd><del>{showValue(cat, t, f, fieldOf(view.previousProfile, f))}</del> → <ins>{showValue(cat, t, f, fieldOf(view.profile, f))}</ins></dd>
                  )}
                </div>
              ))}
            </dl>
          ) : <p className="muted">{t('console.nothingChanged')}</p>}
        </div>
      ) : null}

      <div className="card">
        <h3>{t('console.photos')}</h3>
        <ul className="photo-grid review-photos">
          {view.photos.map((p, i) => (
            <li key={p}><Image src={p} alt={t('profile.photoAlt', { n: i + 1 })} width={160} height={213} /></li>
          ))}
        </ul>
      </div>

      <ResemblingPhotos items={view.resembling} />

      <div className="card" data-testid="verification">
        <h3>{t('console.verification')}</h3>
        <dl className="summary-list">
          <dt>{t('field.verifyMethod')}</dt>
          <dd data-testid="verify-method">{view.verification.method ? t(`choice.verifyMethod.${view.verification.method}`) : '—'}</dd>
          {view.verification.companyEmail ? (<><dt>{t('field.companyEmail')}</dt><dd>{view.verification.companyEmail}</dd></>) : null}
          {view.verification.method === 'COMPANY_EMAIL' ? (
            <>
              <dt>{t('console.employer')}</dt>
              <dd data-testid="verify-employer">{view.verification.employer?.name ?? t('console.noEmployer')}</dd>
              <dt>{t('console.codeConfirmed')}</dt>
              <dd data-testid="verify-code">{view.verification.emailConfirmed ? t('console.confirmedAt', { at: when(view.verification.emailConfirmedAt ?? 0) }) : t('common.no')}</dd>
            </>
          ) : null}
          <dt>{t('console.employerPick')}</dt>
          <dd data-testid="employer-on-record">{view.verification.employerOnRecord?.name ?? t('console.noEmployer')}</dd>
          {view.verification.reviewLink ? (<><dt>{t('field.reviewLink')}</dt><dd><a href={view.verification.reviewLink} target="_blank" rel="noopener noreferrer nofollow">{view.verification.reviewLink}</a></dd></>) : null}
          <dt>{t('field.verifyDescription')}</dt>
          <dd>{show(view.verification.description)}</dd>
        </dl>
        {view.verification.fileId ? <Image src={view.verification.fileId} alt={t('field.verifyTempFileName')} width={320} height={200} fit="contain" className="verify-file" /> : null}
      </div>

      <div className="card">
        <h3>{t('console.profile')}</h3>
        <dl className="summary-list" data-testid="profile-fields">
          {Object.entries(view.profile).filter(([k]) => !HIDDEN.has(k)).map(([k, v]) => (
            <div key={k} className={changed.has(k) || (k === 'latitude' && changed.has('longitude')) ? 'changed-row' : undefined} data-field={k}>
              <dt>{label(t, k)}</dt>
              <dd>{k === 'latitude' ? <Location profile={view.profile} /> : showValue(cat, t, k, v)}</dd>
            </div>
          ))}
        </dl>
      </div>

      <div className="card">
        <h3>{t('console.history')}</h3>
        {view.history.length ? (
          <ol className="history-list" data-testid="history">
            {view.history.map((h, i) => (
              <li key={i}>
                <strong data-testid="history-step">{historyLabel(t, h)}</strong> <span className="muted">{when(h.at)}{h.reviewer ? ` · ${h.reviewer}` : ''}</span>
                {h.reasons.length ? <ul>{h.reasons.map((r) => <li key={r}>{reasonText(t, h.toStatus, r)}</li>)}</ul> : null}
                {h.note ? <p className="muted">“{h.note}”</p> : null}
              </li>
            ))}
          </ol>
        ) : <p className="muted">{t('console.noHistory')}</p>}
      </div>

      <DecisionForm key={`${view.version}-${view.revision ?? ''}`} view={view} codes={codes} employers={cat?.employers ?? []} disabled={heldByOther} onDone={() => { onDecided(); reload(); }} />
    </article>
  );
}

function reasonText(t: TFunction, status: string, code: string): string {
  const key = `review.${status === 'SUSPENDED' ? 'suspend' : 'reject'}.${code}`;
  return hasMessage(key) ? t(key) : code;
}

/** The member's point as one row: the coordinates and a link to them on OpenStreetMap. */
function Location({ profile }: { profile: ProfilePayload }) {
  const t = useT();
  const { latitude, longitude } = profile as { latitude?: number | null; longitude?: number | null };
  if (typeof latitude !== 'number' || typeof longitude !== 'number') return <>—</>;
  return (
    <span className="location-row">
      <span>{latitude.toFixed(4)}, {longitude.toFixed(4)}</span>
      <a className="btn btn-small" href={mapLink(latitude, longitude)} target="_blank" rel="noopener noreferrer nofollow" data-testid="location-map">
        {t('console.openMap')}
      </a>
    </span>
  );
}

/** A field of a submitted profile by the name the server lists in `changedFields`. */
function fieldOf(profile: ProfilePayload | null | undefined, field: string): unknown {
  return profile ? (profile as Record<string, unknown>)[field] : undefined;
}

export type { ProfilePayload };
