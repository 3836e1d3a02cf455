import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';

/** /signed-out: where signing out (and deleting the account, `?left=1`) lands. Nothing signs the
 *  member in again until they ask; in LINE that takes one tap, since their LINE account still
 *  says who they are. */
export default function SignedOutPage() {
  const t = useT();
  const left = new URLSearchParams(location.search).get('left') === '1';
  return (
    <section className="page signed-out-page" aria-labelledby="signed-out-title" data-testid={left ? 'account-deleted' : 'signed-out'}>
      <h1 id="signed-out-title">{t(left ? 'signedOut.deletedTitle' : 'signedOut.title')}</h1>
      <p className="muted">{t(left ? 'signedOut.deletedHelp' : 'signedOut.help')}</p>
      <button type="button" className="btn btn-primary" onClick={() => void navigate(left ? '/' : '/profile')} data-testid="sign-in-again">
        {t(left ? 'signedOut.startAgain' : 'signedOut.signIn')}
      </button>
    </section>
  );
}
