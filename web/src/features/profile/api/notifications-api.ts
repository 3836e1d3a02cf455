import { api } from '@/lib/api-client';
import type { Schemas } from '@/lib/api/types';

/** GET/PUT /user/notifications: the member's push settings, one switch per kind. */
export type NotificationSettings = Schemas['NotificationSettings'];
export type PushKind = keyof NotificationSettings;

// The toggle shows its own error toast after rolling back; the client's would be a second one.
const quiet = { showToast: false } as const;

export const notificationsApi = {
  get: () => api.get('/user/notifications', quiet),
  /** Changes the kinds named; the others stay as they are. */
  put: (change: Schemas['NotificationChange']) => api.put('/user/notifications', { ...quiet, body: change }),
};

/** GET/PUT /user/pause: taking a break from introductions. */
export type PauseState = Schemas['PauseState'];

export const pauseApi = {
  get: () => api.get('/user/pause', quiet),
  put: (paused: boolean) => api.put('/user/pause', { ...quiet, body: { paused } }),
};

/** GET/PUT /user/colleagues: "never introduce me to people of my employer". */
export type ColleaguesState = Schemas['ColleaguesState'];

export const colleaguesApi = {
  get: () => api.get('/user/colleagues', quiet),
  put: (hideColleagues: boolean) => api.put('/user/colleagues', { ...quiet, body: { hideColleagues } }),
};
