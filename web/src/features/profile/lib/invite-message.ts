import { addFriendUrl } from '@/lib/config';
import { bubbleMessage, linkButton, MUTED, text, type FlexMessage } from '@/lib/line-share';

type T = (key: string, params?: Record<string, string | number>) => string;

/** "Invite a friend to Kizuna": a bubble, in the sender's language, whose one button is the
 *  official account's add-friend link (the one /friend and the start outside LINE use, from
 *  /api/config's `lineBotId`). It says nothing about the member who sends it. */
export function inviteMessage(lineBotId: string, t: T): FlexMessage {
  return bubbleMessage(
    t('profile.invite.alt'),
    [text(t('profile.invite.bubbleTitle'), { size: 'lg', weight: 'bold' }), text(t('profile.invite.bubbleText'), { size: 'sm', color: MUTED })],
    linkButton(t('profile.invite.button'), addFriendUrl(lineBotId)),
  );
}
