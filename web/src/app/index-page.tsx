import { useEffect } from 'react';
import { navigate } from '@/lib/navigation';
import { appState } from '@/lib/app-state';
import { Spinner } from '@/components/spinner';

/** `/`: content not shown in the spec; it sends the user on: an APPROVED member to today's
 *  introductions, anyone else with a profile to /profile, a new user to /register. */
export default function IndexPage() {
  useEffect(() => {
    const status = appState.get().reviewStatus;
    void navigate(status?.status === 'APPROVED' ? '/today' : status ? '/profile' : '/register', { replace: true });
  }, []);
  return <Spinner />;
}
