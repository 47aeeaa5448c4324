"""Batch augmentation of grey 48x48 face crops on the training device, for ``studies.train_face_net``.

Always: random rotation (±12°), scale (0.9-1.12), shift (±12 %), horizontal flip, contrast, brightness and
gamma. ``video``: what recording does to a face: down-scaling to 14-40 px and back (a small face), Gaussian blur,
8x8 block-DCT quantisation with the JPEG luminance table (as in JPEG and H.264 intra coding) at quality 15-70,
sensor noise. ``occlude``: random erasing (Zhong et al., 2020, "Random Erasing Data Augmentation", AAAI) and,
on a tenth of the faces, the lower face hidden. Needs only torch and numpy.
"""

from __future__ import annotations

import math

import numpy as np

from tools.perception.face_resnet import INPUT

_JPEG_LUMA = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], np.float32).reshape(8, 8)
"""The JPEG standard's luminance quantisation table (ITU-T T.81, Annex K, Table K.1)."""


def _dct_matrix(n: int = 8) -> np.ndarray:
    """Orthonormal DCT-II matrix (n, n)."""
    k, i = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    m = np.sqrt(2.0 / n) * np.cos(np.pi * (2 * i + 1) * k / (2 * n))
    m[0] /= np.sqrt(2.0)
    return m.astype(np.float32)


class Augment:
    """Batch augmentation on the device: ``__call__(x)`` maps float (B, 1, 48, 48) in [0, 1] to the network
    input in [-1, 1]; ``steps`` names the optional groups (``CONFIGS``)."""

    def __init__(self, steps: tuple[str, ...], device, seed: int) -> None:
        import torch

        self.steps, self.device = steps, device
        self.g = torch.Generator(device=device).manual_seed(seed)
        self.dct = torch.from_numpy(_dct_matrix()).to(device)
        self.luma = torch.from_numpy(_JPEG_LUMA).to(device)

    def _u(self, n: int, lo: float, hi: float):
        import torch

        return lo + (hi - lo) * torch.rand(n, generator=self.g, device=self.device)

    def _coin(self, n: int, p: float):
        return self._u(n, 0, 1) < p

    def __call__(self, x):
        import torch
        import torch.nn.functional as F

        b = len(x)
        ang = self._u(b, -12, 12) * math.pi / 180
        sc = self._u(b, 0.9, 1.12)
        flip = torch.where(self._coin(b, 0.5), -1.0, 1.0)
        theta = torch.zeros(b, 2, 3, device=self.device)
        theta[:, 0, 0], theta[:, 0, 1] = torch.cos(ang) / sc * flip, -torch.sin(ang) / sc
        theta[:, 1, 0], theta[:, 1, 1] = torch.sin(ang) / sc * flip, torch.cos(ang) / sc
        theta[:, :, 2] = torch.stack([self._u(b, -0.12, 0.12), self._u(b, -0.12, 0.12)], 1)
        x = F.grid_sample(x, F.affine_grid(theta, list(x.shape), align_corners=False), padding_mode="border",
                          align_corners=False)
        mean = x.mean((1, 2, 3), keepdim=True)
        x = (x - mean) * self._u(b, 0.7, 1.3)[:, None, None, None] + mean + self._u(b, -0.15, 0.15)[:, None, None, None]
        x = x.clamp(1e-4, 1) ** self._u(b, 0.75, 1.35)[:, None, None, None]
        if "video" in self.steps:
            x = self._video(x)
        if "occlude" in self.steps:
            x = self._occlude(x)
        return (x.clamp(0, 1) - 0.5) * 2.0

    def _video(self, x):
        import torch
        import torch.nn.functional as F

        b = len(x)
        m = self._coin(b, 0.5)[:, None, None, None]
        side = int(self._u(1, 14, 40).item())
        small = F.interpolate(F.interpolate(x, size=(side, side), mode="area"), size=(INPUT, INPUT),
                              mode="bilinear", align_corners=False)
        x = torch.where(m, small, x)
        m = self._coin(b, 0.3)[:, None, None, None]
        sigma = float(self._u(1, 0.4, 1.3).item())
        r = torch.arange(-3, 4, device=self.device, dtype=torch.float32)
        k = torch.exp(-r**2 / (2 * sigma**2))
        k = k / k.sum()
        blurred = F.conv2d(F.conv2d(F.pad(x, (3, 3, 3, 3), mode="replicate"), k.view(1, 1, 1, 7)), k.view(1, 1, 7, 1))
        x = torch.where(m, blurred, x)
        m = self._coin(b, 0.5)[:, None, None, None]
        x = torch.where(m, self._quantise(x, float(self._u(1, 15, 70).item())), x)
        noise = torch.randn(x.shape, generator=self.g, device=self.device) * self._u(b, 0, 0.04)[:, None, None, None]
        return x + noise * self._coin(b, 0.3)[:, None, None, None]

    def _quantise(self, x, quality: float):
        """8x8 block DCT quantised with the JPEG luminance table at ``quality`` (IJG scaling)."""
        import torch

        scale = 5000 / quality if quality < 50 else 200 - 2 * quality
        q = torch.clamp(torch.floor((self.luma * scale + 50) / 100), min=1)
        b, n = len(x), INPUT // 8
        blocks = (x[:, 0] * 255 - 128).reshape(b, n, 8, n, 8).permute(0, 1, 3, 2, 4)
        coef = self.dct @ blocks @ self.dct.T
        back = self.dct.T @ (torch.round(coef / q) * q) @ self.dct
        return ((back.permute(0, 1, 3, 2, 4).reshape(b, INPUT, INPUT) + 128) / 255)[:, None]

    def _occlude(self, x):
        import torch

        b = len(x)
        x = x.clone()
        ys = torch.arange(INPUT, device=self.device)[None, :, None]
        xs = torch.arange(INPUT, device=self.device)[None, None, :]
        area = self._u(b, 0.08, 0.3) * INPUT * INPUT
        aspect = self._u(b, 0.5, 2.0)
        h = (area * aspect).sqrt().clamp(4, INPUT)
        w = (area / aspect).sqrt().clamp(4, INPUT)
        y0, x0 = self._u(b, 0, 1) * (INPUT - h), self._u(b, 0, 1) * (INPUT - w)
        box = ((ys >= y0[:, None, None]) & (ys < (y0 + h)[:, None, None]) & (xs >= x0[:, None, None])
               & (xs < (x0 + w)[:, None, None]) & self._coin(b, 0.25)[:, None, None])
        x[:, 0][box] = self._u(int(box.sum()), 0, 1)
        lower = (ys >= int(0.62 * INPUT)) & self._coin(b, 0.1)[:, None, None] & (xs >= 0)
        x[:, 0] = torch.where(lower, x[:, 0].mean((1, 2), keepdim=True), x[:, 0])
        return x
