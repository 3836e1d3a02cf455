import { useCallback, useEffect, useState } from 'react';
import { useT } from '@/lib/i18n';
import { appState } from '@/lib/app-state';
import { addFriendUrl, getConfig } from '@/lib/config';
import { refreshFriendship } from '@/lib/liff';
import { describeError, logger } from '@/lib/logger';
import { navigate } from '@/lib/navigation';
import logoUrl from '@/assets/logo.svg';

/** /friend: why the official account is needed, a button to add it, a re-check on return. */
export default function FriendPage() {
  const t = useT();
  const [checking, setChecking] = useState(false);
  const [stillNotFriend, setStillNotFriend] = useState(false);
  const botId = getConfig()?.lineBotId ?? '';

  const recheck = useCallback(async (manual: boolean) => {
    setChecking(true);
    try {
      const isFriend = await refreshFriendship();
      appState.set({ liffIsFriend: isFriend });
      if (isFriend) await navigate('/', { replace: true });
      else if (manual) setStillNotFriend(true);
    } catch (err) {
      logger.warn(`friendship re-check failed: ${describeError(err)}`);
    } finally {
      setChecking(false);
    }
  }, []);

  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === 'visible') void recheck(false);
    };
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
    };
  }, [recheck]);

  return (
    <section className="page friend-page" aria-labelledby="friend-title">
      <img src={logoUrl} alt="" width="64" height="64" className="friend-logo" />
      <h1 id="friend-title">{t('friend.title')}</h1>
      <p className="lead">{t('friend.lead')}</p>
      <ul className="reasons">
        <li>{t('friend.reasonReview')}</li>
        <li>{t('friend.reasonIntroductions')}</li>
        <li>{t('friend.reasonPrivacy')}</li>
      </ul>
      <div className="actions stack">
        <a className="btn btn-primary btn-block" href={addFriendUrl(botId)} target="_blank" rel="noopener noreferrer" data-testid="add-friend">
          {t('friend.add')}
        </a>
        <button type="button" className="btn btn-block" onClick={() => void recheck(true)} disabled={checking}>
          {checking ? t('friend.checking') : t('friend.done')}
        </button>
      </div>
      {stillNotFriend ? <p className="notice" role="status">{t('friend.stillNotFriend')}</p> : null}
    </section>
  );
}
