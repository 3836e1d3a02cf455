import { useT } from '@/lib/i18n';
import { navigate } from '@/lib/navigation';

/** /signed-out: where signing out lands. Nothing signs the member in again until they ask; in LINE
 *  that takes one tap, since their LINE account still says who they are. */
export default function SignedOutPage() {
  const t = useT();
  return (
    <section className="page signed-out-page" aria-labelledby="signed-out-title">
      <h1 id="signed-out-title">{t('signedOut.title')}</h1>
      <p className="muted">{t('signedOut.help')}</p>
      <button type="button" className="btn btn-primary" onClick={() => void navigate('/profile')} data-testid="sign-in-again">
        {t('signedOut.signIn')}
      </button>
    </section>
  );
}
