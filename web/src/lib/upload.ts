import { api } from '@/lib/api-client';

/** Kept apart from the start-up's calls (lib/user-api): only screens loaded later upload. */
/** POST /file/tempUpload, multipart field `file`; answers {fileName}. */
export async function uploadTempFile(file: Blob, name = 'photo.jpg', opts: { showToast?: boolean } = {}): Promise<string> {
  const form = new FormData();
  form.append('file', file, name);
  const res = await api.upload('/file/tempUpload', form, opts);
  if (!res || typeof res.fileName !== 'string') throw new Error('upload: no fileName in the answer');
  return res.fileName;
}
