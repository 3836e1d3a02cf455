import { afterEach, describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { createElement } from 'react';
import { cardPhoto } from 'virtual:core-rules';
import { forgetFramePhoto, framePhoto, rereadFramePhoto } from '@/lib/frame-photo';
import { CardSkeletons, PageFrame } from '@/components/page-frame';
import { Image } from '@/components/image';

const ID = '0123456789abcdef0123456789abcdef';
/** What the server writes into a returning member's /today (routes::pages), from the same rule. */
const pageImg = () =>
  `<img class="p" id="first-photo" alt="" src="/_ipx/s_${cardPhoto.width}x${cardPhoto.height},fit_cover,f_webp/api/file/fetch/${ID}" ` +
  `srcset="${cardPhoto.widths.map((w) => `/_ipx/s_${w}x${(w * 5) / 4},fit_cover,f_webp/api/file/fetch/${ID} ${w}w`).join(', ')}" sizes="${cardPhoto.sizes}">`;

afterEach(() => {
  document.body.innerHTML = '';
  rereadFramePhoto();
});

describe('the first card photo of the page frame', () => {
  it('is read from the page and kept once the markup is gone, until forgotten', () => {
    document.body.innerHTML = `<div id="root">${pageImg()}</div>`;
    rereadFramePhoto();
    document.body.innerHTML = '';
    const photo = framePhoto();
    expect(photo?.src).toContain(ID);
    expect(photo?.sizes).toBe(cardPhoto.sizes);
    forgetFramePhoto();
    expect(framePhoto()).toBeNull();
  });

  it('is nothing on a page without it (the grey shape of index.html stays a shape)', () => {
    document.body.innerHTML = '<div id="root"><i class="p" id="first-photo"></i></div>';
    rereadFramePhoto();
    expect(framePhoto()).toBeNull();
    const { container } = render(createElement(PageFrame, { label: 'Loading', nav: false }));
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelectorAll('.skeleton-photo')).toHaveLength(2);
  });

  it('fills the first shape only, with the very srcset and sizes the card asks for', () => {
    document.body.innerHTML = `<div id="root">${pageImg()}</div>`;
    rereadFramePhoto();
    const skeletons = render(createElement(CardSkeletons, { photo: framePhoto() }));
    const shown = skeletons.container.querySelectorAll('img');
    expect(shown).toHaveLength(1);
    expect(skeletons.container.querySelector('li')?.querySelector('img')).toBe(shown[0]);
    const card = render(createElement(Image, { src: ID, alt: '', width: cardPhoto.width, height: cardPhoto.height, widths: cardPhoto.widths, sizes: cardPhoto.sizes }));
    const img = card.container.querySelector('img')!;
    // The same candidates: the browser picks the same file for the card that the frame loaded.
    expect(img.getAttribute('srcset')).toBe(shown[0]!.getAttribute('srcset'));
    expect(img.getAttribute('sizes')).toBe(shown[0]!.getAttribute('sizes'));
    expect(img.getAttribute('src')).toBe(shown[0]!.getAttribute('src'));
  });

  it('leaves the other images their breakpoint widths', () => {
    const { container } = render(createElement(Image, { src: ID, alt: '', width: 180, height: 240 }));
    const widths = container.querySelector('img')!.getAttribute('srcset')!.split(', ').map((c) => Number(c.split(' ')[1]!.slice(0, -1)));
    expect(widths).toEqual([180, 320, 360]);
  });
});
