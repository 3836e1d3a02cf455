import '@/features/register/components/register-steps.css';
import { useRef, useState, type ChangeEvent } from 'react';
import { downscaleImage, blobToDataUrl } from '@/lib/image-resize';
import { imageUrl } from '@/lib/image-url';
import { toast } from '@/lib/toast';
import { describeError, logger } from '@/lib/logger';
import { useFlag } from '@/components/form';
import type { RegisterForm } from '@/features/register/hooks/use-register-form';
import { getPhoto, isLocalToken, newLocalToken, savePhoto } from '@/features/register/lib/draft-storage';

/** Six photo slots: add, remove, reorder; photos are downscaled here before they are stored. */
export function StepPhotos({ form }: { form: RegisterForm }) {
  const flag = useFlag('photoNameList');
  const { draft, update, errorOf, t } = form;
  const input = useRef<HTMLInputElement>(null);
  const [target, setTarget] = useState<number | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const slots = draft.photoNameList;

  const pick = (i: number) => {
    setTarget(i);
    input.current?.click();
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    if (!files.length || target === null) return;
    const next = [...slots];
    let slot = target;
    for (const file of files) {
      while (slot < next.length && next[slot] && slot !== target) slot++;
      if (slot >= next.length) break;
      setBusy(slot);
      try {
        const dataUrl = await blobToDataUrl(await downscaleImage(file));
        const token = newLocalToken();
        if (!savePhoto(token, dataUrl)) toast.show(t('register.photoMemoryOnly'));
        next[slot] = token;
        update({ photoNameList: [...next] });
      } catch (err) {
        logger.warn(`photo: ${describeError(err)}`);
        toast.error(t('register.photoUnreadable'));
      }
      slot++;
    }
    setBusy(null);
  };

  const move = (i: number, delta: number) => {
    const j = i + delta;
    if (j < 0 || j >= slots.length) return;
    const next = [...slots];
    [next[i], next[j]] = [next[j]!, next[i]!];
    update({ photoNameList: next });
  };

  const removeAt = (i: number) => {
    const next = [...slots];
    next[i] = '';
    update({ photoNameList: next });
  };

  const error = errorOf('photoNameList');
  return (
    <div className={`field${error ? ' field-invalid' : ''}${flag.className}`} data-field="photoNameList">
      {flag.marker}
      <p className="field-hint">{t('hint.photos')}</p>
      <ol className="photo-slots">
        {slots.map((name, i) => {
          const src = name ? (isLocalToken(name) ? getPhoto(name) : imageUrl(name)) : undefined;
          return (
            <li key={i} className={`photo-slot${name ? ' photo-slot-filled' : ''}`} data-testid={`photo-slot-${i}`}>
              {name ? (
                <>
                  {src ? <img src={src} alt={t('register.photoN', { n: i + 1 })} /> : <span className="photo-missing">{t('register.photoMissing')}</span>}
                  {i === 0 ? <span className="photo-main">{t('register.mainPhoto')}</span> : null}
                  <div className="photo-tools">
                    <button type="button" className="icon-btn" onClick={() => move(i, -1)} disabled={i === 0} aria-label={t('register.moveEarlier', { n: i + 1 })}>‹</button>
                    <button type="button" className="icon-btn" onClick={() => removeAt(i)} aria-label={t('register.removePhoto', { n: i + 1 })}>×</button>
                    <button type="button" className="icon-btn" onClick={() => move(i, 1)} disabled={i === slots.length - 1} aria-label={t('register.moveLater', { n: i + 1 })}>›</button>
                  </div>
                </>
              ) : (
                <button type="button" className="photo-add" onClick={() => pick(i)} disabled={busy !== null} aria-label={t('register.addPhotoN', { n: i + 1 })}>
                  {busy === i ? <span className="spinner" aria-hidden="true" /> : <span aria-hidden="true">+</span>}
                </button>
              )}
            </li>
          );
        })}
      </ol>
      <input ref={input} type="file" accept="image/*" multiple hidden onChange={(e) => void onFile(e)} data-testid="photo-file" />
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}
