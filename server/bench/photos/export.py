"""Writes the real photos the photo bench reads into the folder named on the command line, as PNG:
the sample images that ship in scikit-image's wheel (no download at run time) and its subset of
Labeled Faces in the Wild (100 faces and 100 other crops, 25 x 25 grey, scaled up to 200 x 200).
Run inside a venv that has scikit-image (`just bench-photos` makes one under ~/.cache)."""

import os
import sys

import numpy as np
import skimage
import skimage.io
from skimage import img_as_ubyte
from skimage.transform import resize

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
data = os.path.dirname(skimage.data.__file__)
written = 0
for name in sorted(os.listdir(data)):
    if not name.endswith((".png", ".jpg")):
        continue
    try:
        img = skimage.io.imread(os.path.join(data, name))
    except Exception:
        continue
    if img.ndim == 3 and img.shape[2] == 4:
        img = img[:, :, :3]
    if img.dtype != np.uint8:
        img = img_as_ubyte(img)
    if img.ndim < 2 or min(img.shape[:2]) < 64:
        continue
    skimage.io.imsave(os.path.join(out, "sk-" + name.rsplit(".", 1)[0] + ".png"), img, check_contrast=False)
    written += 1
lfw = np.load(os.path.join(data, "lfw_subset.npy"))
for i, face in enumerate(lfw):
    big = img_as_ubyte(resize(face, (200, 200), order=3, anti_aliasing=False).clip(0, 1))
    skimage.io.imsave(os.path.join(out, f"lfw-{i:03}.png"), big, check_contrast=False)
    written += 1
print(f"{written} photos in {out}")
