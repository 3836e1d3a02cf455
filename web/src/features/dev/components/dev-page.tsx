import { useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { isMocked, currentMockUserId } from '@/lib/liff';
import { readRaw, remove, StorageKey, writeRaw } from '@/lib/storage';
import { clearSession, getUserInfo } from '@/lib/auth';
import { navigate } from '@/lib/navigation';
import { toast } from '@/lib/toast';
import { describeError } from '@/lib/logger';
import {
  getMockUser,
  listMail,
  listPushedMessages,
  sendWebhookEvent,
  setReviewer,
  type OutboxMail,
  randomLineUserId,
  upsertMockUser,
  type MockLineUser,
  type PushedMessage,
} from '@/features/dev/api/mock-line';

/** /dev: client-only tools, exempt from the guards. */
export default function DevPage() {
  const t = useT();
  const [user, setUser] = useState<MockLineUser | null>(null);
  const [userIdInput, setUserIdInput] = useState('');
  const [messages, setMessages] = useState<PushedMessage[] | null>(null);
  const [debug, setDebug] = useState(readRaw(StorageKey.debug) === 'true');
  const [draft, setDraft] = useState(() => readRaw(StorageKey.registerForm));
  const mocked = isMocked();
  const [reviewer, setReviewerState] = useState(() => {
    const roles = getUserInfo()?.roles;
    return Array.isArray(roles) && roles.includes('REVIEWER');
  });
  const [mail, setMail] = useState<OutboxMail[] | null>(null);
  const [webhookResult, setWebhookResult] = useState<string | null>(null);

  const toggleReviewer = async () => {
    if (!user) return;
    try {
      setReviewerState(await setReviewer(user.userId, !reviewer));
      // The role travels with the session: a fresh login picks it up.
      clearSession();
    } catch (err) {
      toast.error(describeError(err));
    }
  };

  const webhook = async (type: 'follow' | 'unfollow') => {
    if (!user) return;
    try {
      const status = await sendWebhookEvent(type, user.userId);
      setWebhookResult(t('dev.webhookSent', { type, status }));
      setUser(await getMockUser(user.userId));
    } catch (err) {
      toast.error(describeError(err));
    }
  };

  const loadMail = async () => {
    try {
      setMail(await listMail());
    } catch (err) {
      toast.error(describeError(err));
    }
  };

  useEffect(() => {
    const id = currentMockUserId();
    if (mocked && id) void getMockUser(id).then(setUser).catch(() => setUser(null));
  }, [mocked]);

  const switchTo = async (next: MockLineUser) => {
    try {
      await upsertMockUser(next);
      writeRaw(StorageKey.mockUser, next.userId);
      clearSession();
      location.assign('/');
    } catch (err) {
      toast.error(describeError(err));
    }
  };

  const toggleDebug = () => {
    const next = !debug;
    if (next) writeRaw(StorageKey.debug, 'true');
    else remove(StorageKey.debug);
    setDebug(next);
  };

  const loadMessages = async () => {
    try {
      setMessages(await listPushedMessages());
    } catch (err) {
      toast.error(describeError(err));
    }
  };

  const clearDraft = () => {
    remove(StorageKey.registerForm);
    remove(StorageKey.registerPage);
    remove(StorageKey.profilePhotos);
    setDraft(null);
    toast.success(t('dev.draftCleared'));
  };

  return (
    <section className="page dev-page" aria-labelledby="dev-title">
      <h1 id="dev-title">{t('dev.title')}</h1>

      <div className="card">
        <h2>{t('dev.mockUser')}</h2>
        {!mocked ? <p className="notice">{t('dev.notMocked')}</p> : null}
        {user ? (
          <dl className="summary-list">
            <dt>{t('dev.userId')}</dt>
            <dd><code data-testid="dev-user-id">{user.userId}</code></dd>
            <dt>{t('dev.displayName')}</dt>
            <dd>{user.displayName}</dd>
            <dt>{t('dev.friend')}</dt>
            <dd>{user.friend ? t('common.yes') : t('common.no')}</dd>
          </dl>
        ) : null}
        <div className="actions stack">
          {user ? (
            <button type="button" className="btn" onClick={() => void switchTo({ ...user, friend: !user.friend })} disabled={!mocked}>
              {user.friend ? t('dev.unfriend') : t('dev.befriend')}
            </button>
          ) : null}
          <button
            type="button"
            className="btn"
            disabled={!mocked}
            onClick={() => void switchTo({ userId: randomLineUserId(), displayName: 'New Tester', friend: true })}
          >
            {t('dev.newUser')}
          </button>
        </div>
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const id = userIdInput.trim();
            if (!/^U[0-9a-f]{32}$/.test(id)) {
              toast.error(t('dev.invalidUserId'));
              return;
            }
            void getMockUser(id).then((u) => switchTo(u ?? { userId: id, displayName: 'Tester', friend: true }));
          }}
        >
          <label htmlFor="dev-user">{t('dev.switchUser')}</label>
          <input id="dev-user" className="input" value={userIdInput} onChange={(e) => setUserIdInput(e.target.value)} placeholder="U0123…" autoComplete="off" spellCheck={false} />
          <button type="submit" className="btn" disabled={!mocked}>{t('dev.switch')}</button>
        </form>
      </div>

      <div className="card">
        <h2>{t('dev.reviewer')}</h2>
        <p data-testid="dev-reviewer">{t('dev.isReviewer', { yes: reviewer ? t('common.yes') : t('common.no') })}</p>
        <div className="actions stack">
          <button type="button" className="btn" onClick={() => void toggleReviewer()} disabled={!mocked || !user} data-testid="dev-reviewer-toggle">
            {reviewer ? t('dev.removeReviewer') : t('dev.makeReviewer')}
          </button>
          <button type="button" className="btn" onClick={() => void navigate('/review')}>{t('dev.openConsole')}</button>
        </div>
      </div>

      <div className="card">
        <h2>{t('dev.webhook')}</h2>
        <div className="actions stack">
          <button type="button" className="btn" onClick={() => void webhook('follow')} disabled={!mocked || !user}>{t('dev.follow')}</button>
          <button type="button" className="btn" onClick={() => void webhook('unfollow')} disabled={!mocked || !user}>{t('dev.unfollow')}</button>
        </div>
        {webhookResult ? <p className="muted" role="status" data-testid="dev-webhook-result">{webhookResult}</p> : null}
      </div>

      <div className="card">
        <h2>{t('dev.mail')}</h2>
        <button type="button" className="btn" onClick={() => void loadMail()} disabled={!mocked}>{t('dev.loadMail')}</button>
        {mail ? (
          mail.length ? (
            <ul className="mail-list" data-testid="dev-mail">
              {mail.map((m, i) => (
                <li key={i}>
                  <strong>{m.subject}</strong> → {m.to} <span className="muted">{new Date(m.at * 1000).toLocaleString()}</span>
                  <CodeBlock label={m.subject}>{m.text}</CodeBlock>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('dev.noMail')}</p>
          )
        ) : null}
      </div>

      <div className="card">
        <h2>{t('dev.debug')}</h2>
        <label className="check">
          <input type="checkbox" checked={debug} onChange={toggleDebug} />
          <span>{t('dev.debugHelp')}</span>
        </label>
      </div>

      <div className="card">
        <h2>{t('dev.pushes')}</h2>
        <button type="button" className="btn" onClick={() => void loadMessages()} disabled={!mocked}>{t('dev.loadPushes')}</button>
        {messages ? (
          messages.length ? (
            <CodeBlock label={t('dev.pushes')}>{JSON.stringify(messages, null, 2)}</CodeBlock>
          ) : (
            <p className="muted">{t('dev.noPushes')}</p>
          )
        ) : null}
      </div>

      <div className="card">
        <h2>{t('dev.draft')}</h2>
        <p className="muted">{t('dev.draftPage', { page: readRaw(StorageKey.registerPage) ?? '—' })}</p>
        {draft ? <CodeBlock label={t('dev.draft')} testId="dev-draft">{prettify(draft)}</CodeBlock> : <p className="muted">{t('dev.noDraft')}</p>}
        <button type="button" className="btn btn-danger" onClick={clearDraft}>{t('dev.clearDraft')}</button>
      </div>
    </section>
  );
}

/** A block of text that scrolls: reachable by Tab, so that the keys scroll it too (WCAG 2.1.1),
 *  and named for a screen reader. */
function CodeBlock({ label, testId, children }: { label: string; testId?: string; children: string }) {
  return (
    <pre className="code-block" tabIndex={0} role="region" aria-label={label} data-testid={testId}>
      {children}
    </pre>
  );
}

function prettify(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}
