import { queryKeys, queryOptions } from '@/lib/query';
import { dataExportApi, getMyInfo } from '@/features/profile/api/profile-api';
import { colleaguesApi, notificationsApi, pauseApi } from '@/features/profile/api/notifications-api';

/** The profile screens' queries: each key with its loader. */
export const profileQueries = {
  myInfo: queryOptions(queryKeys.myInfo, () => getMyInfo()),
  pause: queryOptions(queryKeys.pause, () => pauseApi.get()),
  colleagues: queryOptions(queryKeys.colleagues, () => colleaguesApi.get()),
  notifications: queryOptions(queryKeys.notifications, () => notificationsApi.get()),
  /** Where the copy asked for at `requestedAt` stands (asked again until it is ready). */
  dataExport: (requestedAt: number) => queryOptions(queryKeys.dataExport(requestedAt), () => dataExportApi.status()),
};
