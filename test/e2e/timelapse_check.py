"""Independent reader of the console's time-lapse files for test/e2e/browser-check-timelapse.mjs (Pillow, numpy).

Usage: timelapse_check.py FILE REFERENCE.png
FILE is the exported GIF (every frame read) or a PNG of a video's first frame (decoded by ffmpeg); REFERENCE.png is
the Processing API's PNG of the first date, composited on black as the console draws it. Prints JSON:
{format, size: [w, h], frames, frame_diffs: [mean |frame i+1 - frame i| over RGB], first: {mean, p99, max}}, where
`first` compares the first frame with the reference above the label band (the bottom min(40, h // 4) rows, the
largest band the console burns in: web/src/timelapse.js labelBand).
"""

import json
import sys

import numpy as np
from PIL import Image, ImageSequence


def rgb_on_black(image):
    """RGB of `image` composited on black (its alpha, if any, as coverage)."""
    rgba = np.asarray(image.convert("RGBA"), dtype=np.float64)
    return rgba[..., :3] * (rgba[..., 3:4] / 255.0)


def main(path, reference):
    image = Image.open(path)
    frames = [np.asarray(f.convert("RGB"), dtype=np.float64) for f in ImageSequence.Iterator(image)]
    ref = np.round(rgb_on_black(Image.open(reference)))
    width, height = image.size
    top = height - min(40, height // 4)
    first = np.abs(frames[0][:top, : ref.shape[1]] - ref[:top])
    print(
        json.dumps(
            {
                "format": image.format,
                "size": [width, height],
                "frames": len(frames),
                "frame_diffs": [round(float(np.abs(b - a).mean()), 2) for a, b in zip(frames, frames[1:])],
                "first": {
                    "mean": round(float(first.mean()), 3),
                    "p99": float(np.percentile(first, 99)),
                    "max": float(first.max()),
                },
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
