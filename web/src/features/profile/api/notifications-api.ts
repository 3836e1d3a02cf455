import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** GET/PUT /user/notifications: the member's push settings (issue 15). */
export type NotificationSettings = Schemas['NotificationSettings'];

// The toggle shows its own error toast after rolling back; the client's would be a second one.
const quiet = { showToast: false } as const;

export const notificationsApi = {
  get: () => api.get<NotificationSettings>('/user/notifications', quiet),
  put: (settings: NotificationSettings) => api.put<NotificationSettings>('/user/notifications', settings, quiet),
};
