import '@/features/profile/components/profile.css';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { appealText } from 'virtual:core-rules';
import { ChevronRight, Pencil, Settings } from 'lucide-react';
import { previewOf } from '@/lib/profile-preview';
import { todayIso } from '@/lib/wasm';
import { ProfilePreview } from '@/components/profile-preview';
import { formatDate, hasMessage, useLocale, useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';
import { useStore } from '@/lib/store';
import { appState, type ReviewStatus } from '@/lib/app-state';
import { getUserInfo, type UserInfo } from '@/lib/auth';
import { conditionText } from '@/lib/condition-choices';
import type { Catalogues, Condition } from '@/lib/wasm';
import { downscaleImage } from '@/lib/image-resize';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { Avatar } from '@/components/avatar';
import { Image } from '@/components/image';
import { Spinner } from '@/components/spinner';
import { BottomNav } from '@/components/bottom-nav';
import { useCatalogues } from '@/lib/wasm/use-catalogues';
import { useQuery } from '@/lib/query';
import { AVATAR_PX, avatarSource, changeAvatar, getMyInfo, sendAppeal, startResubmission, summarise } from '@/features/profile/api/profile-api';
import { ApiError } from '@/lib/api-client';
import { profileQueries } from '@/features/profile/api/queries';
import { InviteCard } from '@/features/profile/components/invite-card';
import { ReviewTimeLine } from '@/features/profile/components/review-time';

const STATUS_CLASS: Record<string, string> = {
  PENDING: 'badge-pending',
  APPROVED: 'badge-approved',
  REJECTED: 'badge-rejected',
  SUSPENDED: 'badge-suspended',
};

/** /profile: review status, editing, the profile summary with photos through the image proxy, the
 *  partner conditions, avatar change, and one entry to /settings (a break, colleagues,
 *  notifications, help, sign-out, the data, deleting the account). */
export default function ProfilePage() {
  const t = useT();
  const lineProfile = useStore(appState, (s) => s.liffUserProfile);
  const reviewStatus = useStore(appState, (s) => s.reviewStatus);
  const locale = useLocale();
  // my-info as the start-up left it in memory, asked again behind it on every visit.
  const [info, , setInfo] = useQuery(profileQueries.myInfo, { initial: getUserInfo() });
  const summary = summarise(info.kind === 'ok' ? info.value : null);
  const loading = info.kind === 'loading';
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const cat = useCatalogues();
  const cityKey = summary.city ? cat?.cities.find((c) => c.code === summary.city)?.key : undefined;

  const onAvatar = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setUploading(true);
    try {
      const small = await downscaleImage(file, 512);
      await changeAvatar(small);
      setInfo(await getMyInfo());
      toast.success(t('profile.avatarChanged'));
    } catch (err) {
      logger.warn(`avatar change failed: ${describeError(err)}`);
    } finally {
      setUploading(false);
    }
  };

  // Approved members take part in matchmaking: the bottom navigation leads there.
  const approved = String(reviewStatus?.status ?? '').toUpperCase() === 'APPROVED';
  // A suspended member reads why and may sign out, nothing else (the server refuses the rest).
  const suspended = String(reviewStatus?.status ?? '').toUpperCase() === 'SUSPENDED';
  const name = summary.nickname ?? lineProfile?.displayName ?? summary.displayName ?? '';
  const avatarSrc = avatarSource(summary, lineProfile?.pictureUrl);

  return (
    <section className={`page profile-page${approved ? ' with-bottom-nav' : ''}`} aria-labelledby="profile-title">
      <header className="profile-header">
        <Avatar src={avatarSrc} alt={name || t('profile.you')} size={AVATAR_PX} />
        <div className="profile-header-text">
          <h1 id="profile-title">{name || t('profile.title')}</h1>
          {lineProfile?.displayName && lineProfile.displayName !== name ? (
            <p className="muted">{lineProfile.displayName}</p>
          ) : null}
        </div>
        {suspended ? null : (
          <>
            <button type="button" className="btn btn-small" onClick={() => fileInput.current?.click()} disabled={uploading}>
              {uploading ? t('common.saving') : t('profile.changeAvatar')}
            </button>
            <input ref={fileInput} type="file" accept="image/*" hidden onChange={(e) => void onAvatar(e)} aria-label={t('profile.changeAvatar')} />
          </>
        )}
      </header>

      <ReviewCard status={reviewStatus} />
      {info.kind === 'ok' && (suspended || info.value.appeal) ? (
        <AppealCard info={info.value} suspended={suspended} onSent={async () => setInfo(await getMyInfo())} />
      ) : null}
      {approved && info.kind === 'ok' ? <EditCard revision={info.value.revision ?? null} profile={info.value.profile ?? null} cat={cat} /> : null}

      {loading ? (
        <Spinner />
      ) : (
        <div className="card">
          <h2>{t('profile.summary')}</h2>
          <dl className="summary-list">
            {summary.occupation ? (<><dt>{t('field.occupation')}</dt><dd>{summary.occupation}</dd></>) : null}
            {summary.city ? (<><dt>{t('field.city')}</dt><dd>{cityKey ? t(cityKey) : summary.city}</dd></>) : null}
            {summary.birthday ? (<><dt>{t('field.birthday')}</dt><dd>{formatDate(summary.birthday, locale)}</dd></>) : null}
          </dl>
          {summary.aboutMe ? <p className="about">{summary.aboutMe}</p> : null}
          {summary.photos.length ? (
            <ul className="photo-grid" aria-label={t('register.step.photos')}>
              {summary.photos.map((p, i) => (
                <li key={p}>
                  <Image src={p} alt={t('profile.photoAlt', { n: i + 1 })} width={110} height={147} loading={i < 3 ? 'eager' : 'lazy'} />
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      )}
      {approved && info.kind === 'ok' && info.value.profile ? <ConditionsCard profile={info.value.profile} cat={cat} /> : null}
      {/* Where a member looks for what is theirs to do with Kizuna, above the settings; nothing
          for a suspended member, who may only read why and sign out. */}
      {suspended ? null : <InviteCard />}
      {/* Everything else is a setting: one entry, one screen (/settings). */}
      <a
        className="card settings-entry"
        href="/settings"
        data-testid="open-settings"
        onClick={(e) => {
          e.preventDefault();
          void navigate('/settings');
        }}
      >
        <Settings aria-hidden="true" />
        <span>
          <strong>{t('settings.title')}</strong>
          <span className="muted">{t(approved ? 'settings.summary' : 'settings.summaryAccount')}</span>
        </span>
        <ChevronRight aria-hidden="true" className="settings-entry-chevron" />
      </a>
      {approved ? <BottomNav current="profile" /> : null}
    </section>
  );
}

function reasonLabel(t: (k: string) => string, status: string, code: string): string {
  const key = `review.${status === 'SUSPENDED' ? 'suspend' : 'reject'}.${code}`;
  return hasMessage(key) ? t(key) : code;
}

function ReviewCard({ status }: { status: ReviewStatus | null }) {
  const t = useT();
  const [opening, setOpening] = useState(false);
  if (!status) return null;
  const value = String(status.status ?? '').toUpperCase();
  const reasons = Array.isArray(status.reasons) ? status.reasons.filter((r): r is string => typeof r === 'string') : [];
  const note = typeof status.note === 'string' && status.note ? status.note : null;
  const edit = async () => {
    setOpening(true);
    try {
      await startResubmission();
      await navigate('/register');
    } catch (err) {
      logger.warn(`resubmission could not start: ${describeError(err)}`);
      toast.error(t('error.unexpected'));
      setOpening(false);
    }
  };
  return (
    <div className="card review-card" data-testid="review-status" data-status={value}>
      <div className="review-row">
        <h2>{t('profile.reviewStatus')}</h2>
        <span className={`badge ${STATUS_CLASS[value] ?? ''}`}>{t(`review.${value}`)}</span>
      </div>
      <p className="muted">{t(`review.${value}.help`)}</p>
      {value === 'PENDING' ? <ReviewTimeLine /> : null}
      {(value === 'REJECTED' || value === 'SUSPENDED') && (reasons.length || note || status.reason) ? (
        <div className="notice notice-error" data-testid="review-reasons">
          <strong>{t(reasons.length > 1 ? 'review.reasons' : 'review.reason')}</strong>
          {reasons.length ? (
            <ul>
              {reasons.map((r) => <li key={r} data-reason={r}>{reasonLabel(t, value, r)}</li>)}
            </ul>
          ) : !note && status.reason ? <span> {String(status.reason)}</span> : null}
          {note ? <p data-testid="review-note"><strong>{t('review.note')}</strong> {note}</p> : null}
        </div>
      ) : null}
      {value === 'REJECTED' ? (
        <button type="button" className="btn btn-primary" onClick={() => void edit()} disabled={opening} data-testid="edit-resubmit">
          {t('profile.editResubmit')}
        </button>
      ) : null}
    </div>
  );
}

/** A second look at a suspension: the statement of reasons goes on (what was decided is the
 *  review card above, with the rule each reason names); here, how to ask again (once per
 *  suspension, another reviewer answers), the form, and where the appeal stands. */
function AppealCard({ info, suspended, onSent }: { info: UserInfo; suspended: boolean; onSent: () => Promise<void> }) {
  const t = useT();
  const locale = useLocale();
  const textId = useId();
  const hintId = useId();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const appeal = info.appeal ?? null;
  // Only this suspension's appeal is news on a suspended profile; a reinstated member sees the answer.
  if (!suspended && appeal?.status !== 'REINSTATED') return null;
  const decidedAt = info.reviewDecision?.decidedAt;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) {
      setProblem(t('profile.appeal.required'));
      return;
    }
    setSending(true);
    setProblem(null);
    try {
      await sendAppeal(text.trim());
      toast.success(t('profile.appeal.sent'));
      await onSent();
    } catch (err) {
      logger.warn(`appeal could not be sent: ${describeError(err)}`);
      setProblem(err instanceof ApiError ? err.causeText : t('error.unexpected'));
    } finally {
      setSending(false);
    }
  };
  return (
    <section className="card" aria-labelledby="appeal-title" data-testid="appeal-card" data-status={appeal?.status ?? (info.mayAppeal ? 'NONE' : 'CLOSED')}>
      <h2 id="appeal-title">{t(appeal ? 'profile.appeal.yours' : 'profile.appeal.title')}</h2>
      {suspended ? (
        <p className="muted" data-testid="appeal-statement">
          {decidedAt ? t('profile.appeal.decidedOn', { date: formatDate(new Date(decidedAt * 1000).toISOString().slice(0, 10), locale) }) + ' ' : ''}
          {t('profile.appeal.statement')}
        </p>
      ) : null}
      {appeal ? (
        <div className={`notice${appeal.status === 'UPHELD' ? ' notice-error' : ''}`} data-testid="appeal-state" role="status">
          <p>{t(`profile.appeal.${appeal.status}`, { date: formatDate(new Date(appeal.submittedAt * 1000).toISOString().slice(0, 10), locale) })}</p>
          {appeal.note ? <p><strong>{t('review.note')}</strong> {appeal.note}</p> : null}
          <p className="muted"><strong>{t('profile.appeal.yourText')}</strong> {appeal.text}</p>
        </div>
      ) : null}
      {info.mayAppeal ? (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <label htmlFor={textId}>{t('profile.appeal.label')}</label>
          <textarea
            id={textId}
            className="input"
            rows={4}
            maxLength={appealText.max}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-describedby={hintId}
            aria-invalid={problem ? true : undefined}
            data-testid="appeal-text"
          />
          <p id={hintId} className="muted">{t('profile.appeal.hint', { max: appealText.max })}</p>
          {problem ? <p className="notice notice-error" role="alert" data-testid="appeal-problem">{problem}</p> : null}
          <button type="submit" className="btn btn-primary" disabled={sending} data-testid="appeal-send">
            {sending ? t('common.saving') : t('profile.appeal.send')}
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The sections of the profile an approved member edits one at a time, in the form's order. */
const SECTIONS = ['basics', 'work', 'lifestyle', 'tags', 'about', 'photos', 'conditions', 'location'] as const;

/** Edit after approval: one section at a time, in place (`/register?section=…`,
 *  the register form's step alone, saved on its own), or every step of the form; the preview of
 *  how others see the approved profile; and where a revision stands. The form is filled from the
 *  revision waiting or sent back, else the approved profile. */
function EditCard({ revision, profile, cat }: { revision: UserInfo['revision']; profile: UserInfo['profile'] | null; cat: Catalogues | null }) {
  const t = useT();
  const [opening, setOpening] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const status = revision?.status ?? null;
  const edit = async (path: string) => {
    setOpening(true);
    try {
      await startResubmission();
      await navigate(path);
    } catch (err) {
      logger.warn(`edit could not start: ${describeError(err)}`);
      toast.error(t('error.unexpected'));
      setOpening(false);
    }
  };
  return (
    <div className="card" data-testid="edit-profile-card">
      <h2>{t('profile.editProfile')}</h2>
      <p className="muted">{t('profile.editHelp')}</p>
      {revision && status ? (
        <div className={`notice${status === 'REJECTED' ? ' notice-error' : ''}`} data-testid="revision-status" data-status={status}>
          <p>{t(`profile.revision.${status}`)}</p>
          {status === 'REJECTED' && revision.reasons.length ? (
            <ul data-testid="revision-reasons">
              {revision.reasons.map((r) => <li key={r} data-reason={r}>{reasonLabel(t, 'REJECTED', r)}</li>)}
            </ul>
          ) : null}
          {revision.note ? <p data-testid="revision-note"><strong>{t('review.note')}</strong> {revision.note}</p> : null}
        </div>
      ) : null}
      {status === 'REJECTED' ? (
        <button type="button" className="btn btn-primary" onClick={() => void edit('/register')} disabled={opening} data-testid="edit-profile">
          {t('profile.revision.editAgain')}
        </button>
      ) : (
        <>
          <ul className="edit-sections" aria-label={t('profile.editSections')}>
            {SECTIONS.map((id) => (
              <li key={id}>
                <button type="button" className="edit-section-row" onClick={() => void edit(`/register?section=${id}`)} disabled={opening} data-testid={`edit-section-${id}`}>
                  <span>{t(`register.step.${id}`)}</span>
                  <Pencil aria-hidden="true" />
                </button>
              </li>
            ))}
          </ul>
          <div className="edit-actions">
            {profile ? (
              <button type="button" className="btn" aria-expanded={previewing} aria-controls="profile-preview-box" onClick={() => setPreviewing((p) => !p)} data-testid="profile-preview-toggle">
                {t(previewing ? 'preview.hide' : 'preview.show')}
              </button>
            ) : null}
            <button type="button" className="link-button" onClick={() => void edit('/register')} disabled={opening} data-testid="edit-profile">
              {t('profile.editAll')}
            </button>
          </div>
        </>
      )}
      <div id="profile-preview-box" hidden={!previewing}>
        {previewing && profile ? (
          <section aria-labelledby="profile-preview-title">
            <h3 id="profile-preview-title">{t('preview.title')}</h3>
            <ProfilePreview profile={previewOf(profile, cat, t, todayIso())} />
          </section>
        ) : null}
      </div>
    </div>
  );
}

/** What the member looks for (their partner conditions and distance): an empty /today links here,
 *  since narrow conditions are the usual reason for a day without introductions. */
function ConditionsCard({ profile, cat }: { profile: NonNullable<UserInfo['profile']>; cat: Catalogues | null }) {
  const t = useT();
  const conditions = (profile.valueItem ?? []) as Condition[];
  const km = profile.recommendDistanceKm ?? 0;
  return (
    <div className="card" id="conditions" data-testid="profile-conditions">
      <h2>{t('profile.conditions')}</h2>
      <ul className="summary-conditions">
        <li>{km > 0 ? t('profile.distanceKm', { km }) : t('profile.anyDistance')}</li>
        {cat ? conditions.map((c) => <li key={c.type}>{conditionText(cat, t, c)}</li>) : null}
      </ul>
      {conditions.length === 0 ? <p className="muted">{t('profile.noConditions')}</p> : null}
      <p className="muted" data-testid="conditions-help">{t('profile.conditionsHelp', { edit: t('profile.editProfile') })}</p>
    </div>
  );
}
