import { framePhoto, type FramePhoto } from '@/lib/frame-photo';

/** What the app shows before a screen's data (or the start-up) is there: the page's frame with
 *  grey shapes where the cards will be, rather than a spinner or a logo alone. index.html carries
 *  the same shapes as static markup, so the frame is painted with the HTML, before any script.
 *  `photo`: the first card's photo, already known (lib/frame-photo), in the first shape. */
export function CardSkeletons({ count = 2, photo = null }: { count?: number; photo?: FramePhoto | null }) {
  return (
    <ul className="skeleton-list" aria-hidden="true" data-testid="skeleton">
      {Array.from({ length: count }, (_, i) => (
        <li key={i} className="skeleton-card">
          {i === 0 && photo ? (
            <img className="skeleton-photo" src={photo.src} srcSet={photo.srcSet} sizes={photo.sizes} alt="" data-testid="frame-photo" />
          ) : (
            <span className="skeleton-photo" />
          )}
          <span className="skeleton-line" />
          <span className="skeleton-line short" />
        </li>
      ))}
    </ul>
  );
}

/** The start-up's frame: a title bar, card shapes and (for an approved member's tabs) the bottom
 *  bar, with a label for screen readers. */
export function PageFrame({ label, nav }: { label: string; nav: boolean }) {
  return (
    <div className="page-frame" role="status" aria-busy="true" data-testid="page-frame">
      <span className="sr-only">{label}</span>
      <span className="skeleton-title" aria-hidden="true" />
      <CardSkeletons photo={framePhoto()} />
      {nav ? <span className="skeleton-nav" aria-hidden="true" /> : null}
    </div>
  );
}
