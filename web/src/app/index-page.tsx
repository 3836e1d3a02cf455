import { useEffect } from 'react';
import { navigate } from '@/lib/navigation';
import { appState } from '@/lib/app-state';
import { Spinner } from '@/components/spinner';

/** `/`: content not shown in the spec; until matchmaking exists it sends the user on. */
export default function IndexPage() {
  useEffect(() => {
    void navigate(appState.get().reviewStatus ? '/profile' : '/register', { replace: true });
  }, []);
  return <Spinner />;
}
