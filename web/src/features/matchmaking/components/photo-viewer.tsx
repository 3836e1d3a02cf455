import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { ChevronLeft, ChevronRight, X } from 'lucide-react';
import { useT } from '@/lib/i18n';
import { Image } from '@/components/image';
import { useModal } from '@/features/matchmaking/components/dialog';

/** The viewer's rendition of a photo: as wide as a large phone at density 2 (the srcset and
 *  `sizes="100vw"` pick what the screen needs), never cropped. */
const VIEW_WIDTH = 800;
const VIEW_HEIGHT = 1067;

/** Full-screen photos of one member: a native modal <dialog> (focus kept inside, Esc closes)
 *  holding a scroll-snap strip, so a swipe moves one photo as the phone's own scrolling does;
 *  the arrow buttons and the arrow keys move it too. Each photo keeps its alt text. `start`: the
 *  photo it opens at, null while closed. */
export function PhotoViewer({ photos, name, start, onClose }: { photos: readonly string[]; name: string; start: number | null; onClose: () => void }) {
  const t = useT();
  const dialog = useModal(start !== null);

  return (
    <dialog ref={dialog} className="pv" aria-label={t('match.photos', { name })} data-testid="photo-viewer" onClose={onClose}>
      {start !== null ? <Strip key={start} photos={photos} name={name} start={start} onClose={onClose} /> : null}
    </dialog>
  );
}

function Strip({ photos, name, start, onClose }: { photos: readonly string[]; name: string; start: number; onClose: () => void }) {
  const t = useT();
  const strip = useRef<HTMLDivElement>(null);
  const settle = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [index, setIndex] = useState(start);
  useEffect(() => () => clearTimeout(settle.current), []);

  // Opening at a photo: the strip is placed on it.
  useEffect(() => {
    const el = strip.current;
    if (el) el.scrollTo({ left: start * el.clientWidth, behavior: 'instant' });
  }, [start]);

  const go = (to: number) => {
    const next = Math.max(0, Math.min(photos.length - 1, to));
    setIndex(next);
    const el = strip.current;
    // Glides to the photo, unless the member asked for less motion: then it is there at once.
    const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    el?.scrollTo({ left: next * el.clientWidth, behavior: still ? 'instant' : 'smooth' });
  };

  // The arrow keys wherever the focus is (a button that became disabled at the last photo lets
  // it go to the page).
  const onKey = useEffectEvent((e: KeyboardEvent) => {
    if (e.key === 'ArrowRight') {
      e.preventDefault();
      go(index + 1);
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      go(index - 1);
    }
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  return (
    <div className="pv-body">
      {/* Focusable, so that the keys reach what scrolls (WCAG 2.1.1): the arrows move a photo. */}
      <div
        className="pv-strip"
        ref={strip}
        tabIndex={0}
        role="group"
        aria-label={t('match.photos', { name })}
        data-testid="photo-viewer-strip"
        onScroll={(e) => {
          // The photo the strip settles on (a swipe, or where a button sent it), not each one it
          // passes on the way: the count and the buttons would flicker back.
          const el = e.currentTarget;
          clearTimeout(settle.current);
          settle.current = setTimeout(() => {
            if (el.clientWidth > 0) setIndex(Math.round(el.scrollLeft / el.clientWidth));
          }, 100);
        }}
      >
        {photos.map((p, i) => (
          <figure key={p} className="pv-slide" aria-hidden={i !== index || undefined} data-testid="photo-viewer-slide">
            <Image src={p} alt={t('match.photoAlt', { n: i + 1, name })} width={VIEW_WIDTH} height={VIEW_HEIGHT} fit="inside" sizes="100vw" loading={Math.abs(i - index) <= 1 ? 'eager' : 'lazy'} className="pv-img" />
          </figure>
        ))}
      </div>
      <p className="pv-count" aria-live="polite" data-testid="photo-viewer-count">
        {t('match.photoCount', { n: index + 1, total: photos.length })}
      </p>
      <button type="button" className="pv-btn pv-close" onClick={onClose} aria-label={t('common.close')} data-testid="photo-viewer-close">
        <X aria-hidden="true" />
      </button>
      {photos.length > 1 ? (
        <>
          <button type="button" className="pv-btn pv-prev" onClick={() => go(index - 1)} disabled={index === 0} aria-label={t('match.photoPrevious')} data-testid="photo-viewer-prev">
            <ChevronLeft aria-hidden="true" />
          </button>
          <button type="button" className="pv-btn pv-next" onClick={() => go(index + 1)} disabled={index === photos.length - 1} aria-label={t('match.photoNext')} data-testid="photo-viewer-next">
            <ChevronRight aria-hidden="true" />
          </button>
        </>
      ) : null}
    </div>
  );
}
