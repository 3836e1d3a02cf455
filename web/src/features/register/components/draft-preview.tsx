import { ProfilePreview } from '@/components/profile-preview';
import { previewOf } from '@/lib/profile-preview';

type Of = Parameters<typeof previewOf>;

/** "How others see you" of an approved member's section edit, from the draft. Loaded when the
 *  member opens it: a new member's first screen never needs it (nor its photos' code and styles). */
export default function DraftPreview({ draft, cat, t, today }: { draft: Of[0]; cat: Of[1]; t: Of[2]; today: Of[3] }) {
  return <ProfilePreview profile={previewOf(draft, cat, t, today)} />;
}
