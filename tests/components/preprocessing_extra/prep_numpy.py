"""NumPy references for the extra preprocessors."""

from __future__ import annotations

import numpy as np

GREY_WEIGHTS = np.array([0.299, 0.587, 0.114])


def bilinear_resize(images: np.ndarray, height: int, width: int) -> np.ndarray:
    """``(n, h, w, c)`` → ``(n, height, width, c)`` float64: half-pixel centres, edges clamped, no antialiasing
    (TensorFlow's ``resize_bilinear(half_pixel_centers=True)``)."""
    def axis(out_size: int, in_size: int):
        source = (np.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
        floor = np.floor(source)
        lower = np.maximum(floor, 0).astype(int)
        upper = np.minimum(np.ceil(source), in_size - 1).astype(int)
        return lower, upper, source - floor

    images = images.astype(np.float64)
    top, bottom, dy = axis(height, images.shape[1])
    left, right, dx = axis(width, images.shape[2])
    dx = dx[None, None, :, None]
    upper = images[:, top][:, :, left] + (images[:, top][:, :, right] - images[:, top][:, :, left]) * dx
    lower = images[:, bottom][:, :, left] + (images[:, bottom][:, :, right] - images[:, bottom][:, :, left]) * dx
    return upper + (lower - upper) * dy[None, :, None, None]


class FrameStackReference:
    """The last ``n`` frames per row, oldest first; the first frame after a reset fills every slot."""

    def __init__(self, num_frames: int, add_rank: bool):
        self.num_frames, self.add_rank, self.frames = num_frames, add_rank, None

    def reset(self) -> None:
        self.frames = None

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        self.frames = [frame] * self.num_frames if self.frames is None else self.frames[1:] + [frame]
        return np.stack(self.frames, -1) if self.add_rank else np.concatenate(self.frames, -1)
