"""Photometric primitives — operate on RGB image tensor; mask passes through unchanged.

Each primitive has signature:
    fn(img, mask, spec, seed_base, epoch, step) -> (img_out, mask_out)

`img` is (B, 3, H, W) float in [0, 1], any device. `mask` is (B, 1, H, W) or None.
All randomness is CPU-side, samples then moved to img.device, ensuring CPU/CUDA
bit-exact within fp32 ulp.
"""
import math
import torch

from .utils import per_item_seed, cpu_generator, sample_uniform, sample_bool, fast_noise_enabled
from . import utils as _u
from .philox import device_normal_batch as philox_normal_batch, device_uniform_batch as philox_uniform_batch


# ─── 13: gamma ────────────────────────────────────────────────────────
def gamma(img, mask, spec, seed_base, epoch, step):
    """Per-item gamma correction: out = img.clamp(0,1) ^ γ, γ ∈ gamma_range.

    spec = {"p": float in [0,1], "gamma_range": (float, float)}

    Bit-exact: elementwise op, tolerance class 1e-6 (torch.pow is elementwise on
    CPU and CUDA backed by the same IEEE-754 fp32 semantics).

    Items that fail the per-item Bernoulli test pass through bit-identical
    (via torch.where on a per-item gate, avoiding pow(1.0) round-trip).
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    gmin, gmax = spec.get("gamma_range", (0.6, 1.6))

    # Per-item: Bernoulli gate + gamma value
    gate = torch.zeros(B, dtype=torch.bool)
    gammas = torch.ones(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "gamma"))
        if sample_bool(p, g):
            gate[i] = True
            gammas[i] = sample_uniform(gmin, gmax, g)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    gammas_d = gammas.to(img.device).view(B, 1, 1, 1)
    # Compute powered version; mask gate selects per-item
    powered = img.clamp(0.0, 1.0).pow(gammas_d)
    out = torch.where(gate_d, powered, img)
    return out, mask


# ─── batch 1: simple elementwise ──────────────────────────────────────
def gaussian_noise(img, mask, spec, seed_base, epoch, step):
    """Per-item additive Gaussian noise with σ sampled from [lo, hi].

    spec = {"p": prob, "sigma_range": (lo, hi)}

    Hot at canvas 1024: filling a CPU randn tensor and copying to GPU costs
    300+ ms at bs=20. `paraug.set_fast_noise(True)` switches to GPU-side
    randn (~55× faster) at the cost of bit-exact CPU/GPU parity.
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    smin, smax = spec.get("sigma_range", (0.005, 0.03))

    if fast_noise_enabled() and img.is_cuda:
        g = torch.Generator(device=img.device)
        g.manual_seed(per_item_seed(seed_base, epoch, step, 0, "gaussian_noise"))
        gate = (torch.rand(B, generator=g, device=img.device) < p)
        sigmas = torch.empty(B, dtype=img.dtype, device=img.device).uniform_(smin, smax, generator=g)
        noise = torch.randn(img.shape, generator=g, device=img.device, dtype=img.dtype) * sigmas.view(B, 1, 1, 1)
        out = torch.where(gate.view(B, 1, 1, 1).expand_as(img), (img + noise).clamp(0, 1), img)
        return out, mask

    gate = torch.zeros(B, dtype=torch.bool)
    sigmas = torch.zeros(B, dtype=img.dtype)
    if _u.USE_PHILOX:
        # gate/sigma still sampled per item on CPU (tiny); the dense field is
        # generated on-device by Philox, keyed per item -> no CPU RNG, no H2D copy.
        for i in range(B):
            g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "gaussian_noise"))
            if sample_bool(p, g):
                gate[i] = True
                sigmas[i] = sample_uniform(smin, smax, g)
        z = philox_normal_batch(lambda i: per_item_seed(seed_base, epoch, step, i, "gaussian_noise"),
                                B, tuple(img.shape[1:]), img.device, img.dtype)
        noise_d = z * sigmas.to(img.device).view(B, 1, 1, 1)
    else:
        noise = torch.zeros_like(img.cpu()) if img.is_cuda else torch.zeros_like(img)
        for i in range(B):
            g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "gaussian_noise"))
            if sample_bool(p, g):
                gate[i] = True
                sigmas[i] = sample_uniform(smin, smax, g)
                noise[i] = torch.empty_like(img[0].cpu() if img.is_cuda else img[0]).normal_(0.0, 1.0, generator=g) * sigmas[i]
        noise_d = noise.to(img.device)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.where(gate_d.expand_as(img), (img + noise_d).clamp(0, 1), img)
    return out, mask


def salt_pepper_noise(img, mask, spec, seed_base, epoch, step):
    """Per-pixel salt/pepper: with prob `density`, replace pixel with 0 or 1.

    spec = {"p": prob, "density": fraction of pixels affected, "salt_vs_pepper": float [0,1]}

    Same noise hot-spot as gaussian_noise — see `paraug.set_fast_noise()`.
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    density = float(spec.get("density", 0.01))
    salt_frac = float(spec.get("salt_vs_pepper", 0.5))

    if fast_noise_enabled() and img.is_cuda:
        g = torch.Generator(device=img.device)
        g.manual_seed(per_item_seed(seed_base, epoch, step, 0, "salt_pepper_noise"))
        gate = (torch.rand(B, generator=g, device=img.device) < p)
        pix_d = torch.rand(B, 1, H, W, generator=g, device=img.device)
        salt_d = torch.rand(B, 1, H, W, generator=g, device=img.device)
        gate_d = gate.view(B, 1, 1, 1)
        affected = pix_d < density
        is_salt = salt_d < salt_frac
        val = torch.where(is_salt, torch.ones_like(img), torch.zeros_like(img))
        new_img = torch.where(affected.expand_as(img), val, img)
        out = torch.where(gate_d.expand_as(img), new_img, img)
        return out, mask

    gate = torch.zeros(B, dtype=torch.bool)
    if _u.USE_PHILOX:
        for i in range(B):
            g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "salt_pepper_noise"))
            if sample_bool(p, g):
                gate[i] = True
        # one Philox pass yields both fields: (B, 2, H, W) -> pix / salt
        both = philox_uniform_batch(lambda i: per_item_seed(seed_base, epoch, step, i, "salt_pepper_noise"),
                                    B, (2, H, W), img.device, img.dtype)
        pix_d = both[:, 0:1]
        salt_d = both[:, 1:2]
    else:
        # Per-pixel uniform mask, per-item; we sample (B, 1, H, W) on CPU
        pix_rand = torch.zeros(B, 1, H, W, dtype=img.dtype)
        salt_choice = torch.zeros(B, 1, H, W, dtype=img.dtype)
        for i in range(B):
            g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "salt_pepper_noise"))
            if sample_bool(p, g):
                gate[i] = True
                pix_rand[i, 0] = torch.empty(H, W).uniform_(0.0, 1.0, generator=g)
                salt_choice[i, 0] = torch.empty(H, W).uniform_(0.0, 1.0, generator=g)
        pix_d = pix_rand.to(img.device)
        salt_d = salt_choice.to(img.device)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    affected = pix_d < density          # bool mask of pixels to change
    is_salt = salt_d < salt_frac        # salt vs pepper choice
    val = torch.where(is_salt, torch.ones_like(img), torch.zeros_like(img))
    new_img = torch.where(affected.expand_as(img), val, img)
    out = torch.where(gate_d.expand_as(img), new_img, img)
    return out, mask


def color_jitter(img, mask, spec, seed_base, epoch, step):
    """Per-item brightness · contrast · saturation jitter.

    spec = {"p": prob, "brightness": float (±frac), "contrast": float, "saturation": float}
    Order: brightness → contrast → saturation (matches torchvision convention).
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    br = float(spec.get("brightness", 0.2))
    ct = float(spec.get("contrast",   0.2))
    sa = float(spec.get("saturation", 0.2))
    gate = torch.zeros(B, dtype=torch.bool)
    bvals = torch.ones(B, dtype=img.dtype)
    cvals = torch.ones(B, dtype=img.dtype)
    svals = torch.ones(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "color_jitter"))
        if sample_bool(p, g):
            gate[i] = True
            bvals[i] = sample_uniform(1.0 - br, 1.0 + br, g)
            cvals[i] = sample_uniform(1.0 - ct, 1.0 + ct, g)
            svals[i] = sample_uniform(1.0 - sa, 1.0 + sa, g)
    b_d = bvals.to(img.device).view(B, 1, 1, 1)
    c_d = cvals.to(img.device).view(B, 1, 1, 1)
    s_d = svals.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    # brightness: multiply
    x = img * b_d
    # contrast: about the mean
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * c_d + mean
    # saturation: blend with grayscale
    gray = (0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3])
    x = gray + s_d * (x - gray)
    x = x.clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), x, img)
    return out, mask


def random_grayscale(img, mask, spec, seed_base, epoch, step):
    """Per-item replace RGB with grayscale (broadcast to 3 channels).

    spec = {"p": prob} — applied at given probability.
    """
    B, C, _, _ = img.shape
    p = float(spec.get("p", 0.3))
    gate = torch.zeros(B, dtype=torch.bool)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "random_grayscale"))
        if sample_bool(p, g):
            gate[i] = True
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    gray = (0.299 * img[:, 0:1] + 0.587 * img[:, 1:2] + 0.114 * img[:, 2:3]).expand_as(img)
    out = torch.where(gate_d.expand_as(img), gray, img)
    return out, mask


def cutout(img, mask, spec, seed_base, epoch, step):
    """Per-item rectangular cutout(s) replaced with constant value.

    spec = {"p": prob, "n_boxes_range": (lo, hi), "size_frac_range": (lo, hi),
            "value": float (fill value)}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_boxes_range", (1, 3))
    slo, shi = spec.get("size_frac_range", (0.05, 0.2))
    val = float(spec.get("value", 0.5))
    gate = torch.zeros(B, dtype=torch.bool)
    fill_mask = torch.zeros(B, 1, H, W, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "cutout"))
        if sample_bool(p, g):
            gate[i] = True
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            for _ in range(n):
                sh = int(sample_uniform(slo, shi, g) * H)
                sw = int(sample_uniform(slo, shi, g) * W)
                cy = int(sample_uniform(0, H - sh, g))
                cx = int(sample_uniform(0, W - sw, g))
                fill_mask[i, 0, cy:cy + sh, cx:cx + sw] = 1.0
    fill_d = fill_mask.to(img.device)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    filled = torch.where(fill_d.expand_as(img) > 0.5, torch.full_like(img, val), img)
    out = torch.where(gate_d.expand_as(img), filled, img)
    return out, mask


# ─── batch 2: pattern overlay (elementwise after pattern build) ───────
# Module-level cache for the (yy, xx) pixel-coord grid. ~10 photometric
# primitives rebuild it per call; at canvas 1024 each rebuild is 8 MB
# allocated then immediately freed (16 MB total). Caching saves the alloc
# churn (and the kernel launch latency) without holding meaningful VRAM —
# one (H, W, dtype, device) entry is 16 MB, typical pipeline uses one
# canvas_size, so cache footprint stays tiny.
_XY_CACHE: dict = {}


def _xy_coords(H, W, dtype, device="cpu"):
    key = (int(H), int(W), dtype, str(device))
    hit = _XY_CACHE.get(key)
    if hit is not None:
        return hit
    yy, xx = torch.meshgrid(
        torch.arange(H, dtype=dtype, device=device),
        torch.arange(W, dtype=dtype, device=device),
        indexing="ij")
    _XY_CACHE[key] = (yy, xx)
    return yy, xx


def clear_xy_cache() -> None:
    """Drop the cached coord grids — call if you change canvas_size mid-run
    and want to free the old entries (16 MB each at canvas 1024)."""
    _XY_CACHE.clear()


def lighting(img, mask, spec, seed_base, epoch, step):
    """2D Gaussian lighting gradient: bright/dim spot multiplies the image.

    spec = {"p": prob, "strength": float (peak +/- multiplier),
            "sigma_frac": float (Gaussian σ as fraction of min(H, W))}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    strength = float(spec.get("strength", 0.2))
    sigma_frac = float(spec.get("sigma_frac", 0.4))
    sigma = sigma_frac * min(H, W)
    gate = torch.zeros(B, dtype=torch.bool)
    factor = torch.ones(B, 1, H, W, dtype=img.dtype)
    yy, xx = _xy_coords(H, W, img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "lighting"))
        if sample_bool(p, g):
            gate[i] = True
            cy = sample_uniform(0, H - 1, g); cx = sample_uniform(0, W - 1, g)
            amp = sample_uniform(-strength, strength, g)
            r2 = (yy - cy) ** 2 + (xx - cx) ** 2
            gaus = torch.exp(-r2 / (2 * sigma * sigma))
            factor[i, 0] = 1.0 + amp * gaus
    factor_d = factor.to(img.device)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    new_img = (img * factor_d).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), new_img, img)
    return out, mask


def vignette(img, mask, spec, seed_base, epoch, step):
    """Radial darkening from center. factor = 1 - strength · (r/r_max)^power.

    spec = {"p": prob, "strength_range": (lo, hi), "power_range": (lo, hi)}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    smin, smax = spec.get("strength_range", (0.2, 0.5))
    pmin, pmax = spec.get("power_range", (2.0, 4.0))
    gate = torch.zeros(B, dtype=torch.bool)
    factor = torch.ones(B, 1, H, W, dtype=img.dtype)
    yy, xx = _xy_coords(H, W, img.dtype)
    cy, cx = (H - 1) / 2.0, (W - 1) / 2.0
    r_max = math.sqrt(cy ** 2 + cx ** 2)
    r = torch.sqrt((yy - cy) ** 2 + (xx - cx) ** 2) / r_max
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "vignette"))
        if sample_bool(p, g):
            gate[i] = True
            s = sample_uniform(smin, smax, g)
            pow_ = sample_uniform(pmin, pmax, g)
            factor[i, 0] = 1.0 - s * (r ** pow_)
    factor_d = factor.to(img.device).clamp(0, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    new_img = (img * factor_d).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), new_img, img)
    return out, mask


def salt_patches(img, mask, spec, seed_base, epoch, step):
    """Small bright round spots (water/rain droplets). Vectorized over B."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (3, 10))
    rmin, rmax = spec.get("radius_range", (2, 6))
    imin, imax = spec.get("intensity_range", (0.5, 1.0))
    n_max = int(nhi)

    # Per-item RNG → pre-sample all slot params
    gate = torch.zeros(B, dtype=torch.bool)
    n_per_item = torch.zeros(B, dtype=torch.long)
    cy_t = torch.zeros(B, n_max, dtype=img.dtype)
    cx_t = torch.zeros(B, n_max, dtype=img.dtype)
    r_t  = torch.ones(B, n_max, dtype=img.dtype)  # default 1 to avoid div by zero
    int_t = torch.zeros(B, n_max, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "salt_patches"))
        if sample_bool(p, g):
            gate[i] = True
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            n_per_item[i] = n
            for s in range(n):
                cy_t[i, s] = sample_uniform(0, H - 1, g)
                cx_t[i, s] = sample_uniform(0, W - 1, g)
                r_t[i, s] = sample_uniform(rmin, rmax, g)
                int_t[i, s] = sample_uniform(imin, imax, g)
    cy_d = cy_t.to(img.device); cx_d = cx_t.to(img.device)
    r_d = r_t.to(img.device); int_d = int_t.to(img.device)
    nper_d = n_per_item.to(img.device)
    gate_d = gate.to(img.device)

    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    add = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for s in range(n_max):
        valid = (s < nper_d).view(B, 1, 1)  # (B, 1, 1) bool — items where this slot is active
        cy_s = cy_d[:, s].view(B, 1, 1); cx_s = cx_d[:, s].view(B, 1, 1)
        r_s  = r_d[:, s].view(B, 1, 1);  i_s  = int_d[:, s].view(B, 1, 1)
        r2 = (yy.unsqueeze(0) - cy_s) ** 2 + (xx.unsqueeze(0) - cx_s) ** 2
        blob = torch.exp(-r2 / (2 * r_s * r_s)) * i_s
        blob = torch.where(valid, blob, torch.zeros_like(blob))
        add = torch.maximum(add, blob)
    add_d = add.unsqueeze(1)  # (B, 1, H, W)
    gate_4d = gate_d.view(B, 1, 1, 1)
    new_img = (img + add_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_4d.expand_as(img), new_img, img)
    return out, mask


def watermark(img, mask, spec, seed_base, epoch, step):
    """Semi-transparent rectangular blob overlay. Vectorized over B."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    slo, shi = spec.get("size_frac_range", (0.1, 0.3))
    alo, ahi = spec.get("alpha_range", (0.2, 0.5))
    vlo, vhi = spec.get("value_range", (0.3, 0.8))

    # Per-item RNG: pre-sample rectangle params
    gate = torch.zeros(B, dtype=torch.bool)
    sh_t = torch.zeros(B, dtype=torch.long)
    sw_t = torch.zeros(B, dtype=torch.long)
    cy_t = torch.zeros(B, dtype=torch.long)
    cx_t = torch.zeros(B, dtype=torch.long)
    alphas = torch.zeros(B, dtype=img.dtype)
    vals = torch.zeros(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "watermark"))
        if sample_bool(p, g):
            gate[i] = True
            sh_t[i] = int(sample_uniform(slo, shi, g) * H)
            sw_t[i] = int(sample_uniform(slo, shi, g) * W)
            cy_t[i] = int(sample_uniform(0, max(1, H - sh_t[i].item()), g))
            cx_t[i] = int(sample_uniform(0, max(1, W - sw_t[i].item()), g))
            alphas[i] = sample_uniform(alo, ahi, g)
            vals[i] = sample_uniform(vlo, vhi, g)

    # Vectorized mask build via broadcast comparison (B, H, W)
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    cy_d = cy_t.to(img.device).view(B, 1, 1).to(img.dtype)
    cx_d = cx_t.to(img.device).view(B, 1, 1).to(img.dtype)
    sh_d = sh_t.to(img.device).view(B, 1, 1).to(img.dtype)
    sw_d = sw_t.to(img.device).view(B, 1, 1).to(img.dtype)
    yy_b = yy.unsqueeze(0); xx_b = xx.unsqueeze(0)
    in_rect = ((yy_b >= cy_d) & (yy_b < cy_d + sh_d)
                & (xx_b >= cx_d) & (xx_b < cx_d + sw_d)).to(img.dtype)
    mark_d = in_rect.unsqueeze(1)  # (B, 1, H, W)
    alpha_d = alphas.to(img.device).view(B, 1, 1, 1)
    val_d = vals.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    blended = (img * (1.0 - alpha_d * mark_d.expand_as(img))
               + val_d * alpha_d * mark_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), blended, img)
    return out, mask


def random_text_overlay(img, mask, spec, seed_base, epoch, step):
    """Random short line strokes (handwritten notes simulation). Vectorized."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (1, 4))
    llo, lhi = spec.get("length_frac_range", (0.1, 0.3))
    thickness = float(spec.get("thickness_px", 1.5))
    alo, ahi = spec.get("alpha_range", (0.4, 0.9))
    val = float(spec.get("value", 0.1))
    n_max = int(nhi)

    gate = torch.zeros(B, dtype=torch.bool)
    alphas = torch.zeros(B, dtype=img.dtype)
    n_per_item = torch.zeros(B, dtype=torch.long)
    x0_t = torch.zeros(B, n_max, dtype=img.dtype)
    y0_t = torch.zeros(B, n_max, dtype=img.dtype)
    x1_t = torch.zeros(B, n_max, dtype=img.dtype)
    y1_t = torch.zeros(B, n_max, dtype=img.dtype)
    short_side = float(min(H, W))
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "random_text_overlay"))
        if sample_bool(p, g):
            gate[i] = True
            alphas[i] = sample_uniform(alo, ahi, g)
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            n_per_item[i] = n
            for s in range(n):
                x0 = sample_uniform(0, W - 1, g); y0 = sample_uniform(0, H - 1, g)
                length = sample_uniform(llo, lhi, g) * short_side
                ang = sample_uniform(0, math.tau, g)
                x0_t[i, s] = x0; y0_t[i, s] = y0
                x1_t[i, s] = x0 + length * math.cos(ang)
                y1_t[i, s] = y0 + length * math.sin(ang)
    x0_d = x0_t.to(img.device); y0_d = y0_t.to(img.device)
    x1_d = x1_t.to(img.device); y1_d = y1_t.to(img.device)
    nper_d = n_per_item.to(img.device)
    gate_d = gate.to(img.device)

    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    yy_b = yy.unsqueeze(0); xx_b = xx.unsqueeze(0)
    strokes = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for s in range(n_max):
        valid = (s < nper_d).view(B, 1, 1)
        x0 = x0_d[:, s].view(B, 1, 1); y0 = y0_d[:, s].view(B, 1, 1)
        x1 = x1_d[:, s].view(B, 1, 1); y1 = y1_d[:, s].view(B, 1, 1)
        dx = x1 - x0; dy = y1 - y0
        seg_len2 = dx * dx + dy * dy + 1e-8
        t = ((xx_b - x0) * dx + (yy_b - y0) * dy) / seg_len2
        t = t.clamp(0, 1)
        px = x0 + t * dx; py = y0 + t * dy
        dist = torch.sqrt((xx_b - px) ** 2 + (yy_b - py) ** 2)
        stroke_slot = (dist < thickness).to(img.dtype)
        stroke_slot = torch.where(valid, stroke_slot, torch.zeros_like(stroke_slot))
        strokes = torch.maximum(strokes, stroke_slot)
    strokes_d = strokes.unsqueeze(1)
    alpha_d = alphas.to(img.device).view(B, 1, 1, 1)
    gate_d4 = gate_d.view(B, 1, 1, 1)
    blended = (img * (1.0 - alpha_d * strokes_d.expand_as(img))
               + val * alpha_d * strokes_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d4.expand_as(img), blended, img)
    return out, mask


# ─── batch 3: hue_shift (color, RGB ↔ HSV) ────────────────────────────
def _rgb_to_hsv(rgb):
    """rgb: (B, 3, H, W) float [0, 1]. Returns hsv (B, 3, H, W) with H in [0, 1)."""
    r, g, b = rgb[:, 0:1], rgb[:, 1:2], rgb[:, 2:3]
    mx, _ = rgb.max(dim=1, keepdim=True)
    mn, _ = rgb.min(dim=1, keepdim=True)
    delta = mx - mn
    v = mx
    s = torch.where(mx > 1e-8, delta / mx.clamp(min=1e-8), torch.zeros_like(mx))
    # Compute H per pixel based on which channel is max
    denom = delta.clamp(min=1e-8)
    h_r = ((g - b) / denom) % 6
    h_g = ((b - r) / denom) + 2
    h_b = ((r - g) / denom) + 4
    h = torch.where(mx == r, h_r, torch.where(mx == g, h_g, h_b))
    h = torch.where(delta < 1e-8, torch.zeros_like(h), h)
    h = h / 6.0  # to [0, 1)
    return torch.cat([h, s, v], dim=1)


def _hsv_to_rgb(hsv):
    """hsv: (B, 3, H, W); H in [0, 1). Returns rgb (B, 3, H, W) in [0, 1]."""
    h, s, v = hsv[:, 0:1], hsv[:, 1:2], hsv[:, 2:3]
    h6 = (h * 6.0) % 6.0
    i = torch.floor(h6)
    f = h6 - i
    p = v * (1 - s)
    q = v * (1 - s * f)
    t = v * (1 - s * (1 - f))
    i = i.long() % 6
    r = torch.where(i == 0, v, torch.where(i == 1, q, torch.where(i == 2, p, torch.where(i == 3, p, torch.where(i == 4, t, v)))))
    gg = torch.where(i == 0, t, torch.where(i == 1, v, torch.where(i == 2, v, torch.where(i == 3, q, torch.where(i == 4, p, p)))))
    bb = torch.where(i == 0, p, torch.where(i == 1, p, torch.where(i == 2, t, torch.where(i == 3, v, torch.where(i == 4, v, q)))))
    return torch.cat([r, gg, bb], dim=1).clamp(0, 1)


def hue_shift(img, mask, spec, seed_base, epoch, step):
    """RGB → HSV → shift H by ±max_deg → RGB.

    spec = {"p", "max_deg", "chunk_b": int (default 2)}

    Memory: RGB↔HSV builds ~20 (B,1,H,W) intermediate tensors. For B=8 850×1100
    that's ~600 MiB peak. We chunk over the batch dim so peak ≈ chunk_b × 75 MiB
    (default chunk_b=2 → ~150 MiB peak, 4× reduction).
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    max_deg = float(spec.get("max_deg", 30.0))
    chunk_b = int(spec.get("chunk_b", 2))
    gate = torch.zeros(B, dtype=torch.bool)
    shifts = torch.zeros(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "hue_shift"))
        if sample_bool(p, g):
            gate[i] = True
            shifts[i] = sample_uniform(-max_deg / 360.0, max_deg / 360.0, g)
    shifts_d = shifts.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.empty_like(img)
    for cs in range(0, B, chunk_b):
        ce = min(cs + chunk_b, B)
        chunk_img = img[cs:ce]
        hsv = _rgb_to_hsv(chunk_img)
        hsv[:, 0:1] = (hsv[:, 0:1] + shifts_d[cs:ce]) % 1.0
        out[cs:ce] = _hsv_to_rgb(hsv)
        del hsv, chunk_img
    out = torch.where(gate_d.expand_as(img), out, img)
    return out, mask


# ─── batch 4: conv-based ──────────────────────────────────────────────
def _gaussian_kernel_1d(sigma, dtype=torch.float32):
    """1D Gaussian kernel; returns (k,) tensor with sum 1."""
    half = int(math.ceil(3 * sigma))
    half = max(1, half)
    x = torch.arange(-half, half + 1, dtype=dtype)
    k = torch.exp(-x * x / (2 * sigma * sigma))
    return k / k.sum()


def _apply_blur_per_item(img, gate, kernels):
    """img: (B, C, H, W); kernels: list[(1, 1, kh, kw)] of per-item kernels (or None)."""
    B, C, H, W = img.shape
    out = img.clone()
    for i in range(B):
        if gate[i] and kernels[i] is not None:
            w = kernels[i].to(img.device).to(img.dtype)
            kh, kw = w.shape[-2], w.shape[-1]
            w3 = w.expand(C, 1, kh, kw)
            out[i:i + 1] = F.conv2d(img[i:i + 1], w3, padding=(kh // 2, kw // 2), groups=C)
    return out


import torch.nn.functional as F  # late-import to keep section self-contained


def gaussian_blur(img, mask, spec, seed_base, epoch, step):
    """Separable Gaussian blur per item with σ sampled from sigma_range.

    spec = {"p": prob, "sigma_range": (lo, hi)}
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    smin, smax = spec.get("sigma_range", (0.5, 1.5))
    gate = torch.zeros(B, dtype=torch.bool)
    kernels = [None] * B
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "gaussian_blur"))
        if sample_bool(p, gn):
            gate[i] = True
            sigma = sample_uniform(smin, smax, gn)
            k1d = _gaussian_kernel_1d(sigma)
            # Outer product → 2D kernel
            k2d = k1d.unsqueeze(0) * k1d.unsqueeze(1)  # (kh, kw) — square
            kernels[i] = k2d.view(1, 1, *k2d.shape)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    blurred = _apply_blur_per_item(img, gate.tolist(), kernels)
    out = torch.where(gate_d.expand_as(img), blurred, img)
    return out, mask


def motion_blur(img, mask, spec, seed_base, epoch, step):
    """Per-item 1D directional motion blur kernel (length × 1) rotated to angle.

    spec = {"p": prob, "length_range": (lo, hi) px, "angle_range_deg": (lo, hi)}
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    lmin, lmax = spec.get("length_range", (5, 15))
    amin, amax = spec.get("angle_range_deg", (0, 180))
    gate = torch.zeros(B, dtype=torch.bool)
    kernels = [None] * B
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "motion_blur"))
        if sample_bool(p, gn):
            gate[i] = True
            length = int(sample_uniform(lmin, lmax, gn))
            length = max(3, length | 1)  # odd
            ang_deg = sample_uniform(amin, amax, gn)
            ang = math.radians(ang_deg)
            # Draw a line on a (length, length) canvas through center, rotated by ang
            half = length // 2
            yy, xx = _xy_coords(length, length, img.dtype)
            cy, cx = float(half), float(half)
            # Distance from each cell to the line through (cx, cy) at angle ang
            sin_a, cos_a = math.sin(ang), math.cos(ang)
            # Perpendicular distance from (xx, yy) to line: |(xx-cx)*sin_a - (yy-cy)*cos_a|
            dist = ((xx - cx) * sin_a - (yy - cy) * cos_a).abs()
            # Parametric along-line position: also restrict to within length
            along = (xx - cx) * cos_a + (yy - cy) * sin_a
            mask_k = ((dist < 0.5) & (along.abs() < half + 0.5)).to(img.dtype)
            if mask_k.sum() > 0:
                kernels[i] = (mask_k / mask_k.sum()).view(1, 1, length, length)
            else:
                gate[i] = False  # safety: no valid kernel
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    blurred = _apply_blur_per_item(img, gate.tolist(), kernels)
    out = torch.where(gate_d.expand_as(img), blurred, img)
    return out, mask


def sharpness(img, mask, spec, seed_base, epoch, step):
    """Unsharp mask: out = img + α · (img − blur(img)), α sampled per item.

    spec = {"p": prob, "alpha_range": (lo, hi), "sigma": float (Gaussian σ for blur)}
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    alo, ahi = spec.get("alpha_range", (0.3, 0.8))
    sigma = float(spec.get("sigma", 1.5))
    gate = torch.zeros(B, dtype=torch.bool)
    alphas = torch.zeros(B, dtype=img.dtype)
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "sharpness"))
        if sample_bool(p, gn):
            gate[i] = True
            alphas[i] = sample_uniform(alo, ahi, gn)
    # Single shared blur (sigma fixed across batch) — single conv call
    k1d = _gaussian_kernel_1d(sigma).to(img.device).to(img.dtype)
    k2d = k1d.unsqueeze(0) * k1d.unsqueeze(1)
    kh, kw = k2d.shape
    w3 = k2d.view(1, 1, kh, kw).expand(img.shape[1], 1, kh, kw)
    blur = F.conv2d(img, w3, padding=(kh // 2, kw // 2), groups=img.shape[1])
    alpha_d = alphas.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    sharpened = (img + alpha_d * (img - blur)).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), sharpened, img)
    return out, mask


def local_contrast(img, mask, spec, seed_base, epoch, step):
    """Local contrast normalization: (img − blur) / (blur + eps) → renormalised.

    spec = {"p": prob, "sigma": float, "strength_range": (lo, hi)}
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    sigma = float(spec.get("sigma", 5.0))
    slo, shi = spec.get("strength_range", (0.3, 0.7))
    gate = torch.zeros(B, dtype=torch.bool)
    strengths = torch.zeros(B, dtype=img.dtype)
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "local_contrast"))
        if sample_bool(p, gn):
            gate[i] = True
            strengths[i] = sample_uniform(slo, shi, gn)
    k1d = _gaussian_kernel_1d(sigma).to(img.device).to(img.dtype)
    k2d = k1d.unsqueeze(0) * k1d.unsqueeze(1)
    kh, kw = k2d.shape
    w3 = k2d.view(1, 1, kh, kw).expand(img.shape[1], 1, kh, kw)
    blur = F.conv2d(img, w3, padding=(kh // 2, kw // 2), groups=img.shape[1])
    s_d = strengths.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    enhanced = (img + s_d * (img - blur) / (blur + 0.1)).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), enhanced, img)
    return out, mask


def jpeg_approx(img, mask, spec, seed_base, epoch, step):
    """JPEG-like compression approximation: additive noise + 3×3 box blur.
    (libjpeg DCT is non-trivial to make bit-exact on GPU; this approximation
    captures the visual character — high-freq attenuation + quantization noise.)

    spec = {"p": prob, "noise_sigma_range": (lo, hi)}

    Same noise hot-spot as gaussian_noise — see `paraug.set_fast_noise()`.
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    smin, smax = spec.get("noise_sigma_range", (0.005, 0.02))

    if fast_noise_enabled() and img.is_cuda:
        g = torch.Generator(device=img.device)
        g.manual_seed(per_item_seed(seed_base, epoch, step, 0, "jpeg_approx"))
        gate = (torch.rand(B, generator=g, device=img.device) < p)
        sigmas = torch.empty(B, dtype=img.dtype, device=img.device).uniform_(smin, smax, generator=g)
        noise = torch.randn(img.shape, generator=g, device=img.device, dtype=img.dtype) * sigmas.view(B, 1, 1, 1)
        kbox = torch.full((1, 1, 3, 3), 1.0 / 9.0, dtype=img.dtype, device=img.device)
        w3 = kbox.expand(img.shape[1], 1, 3, 3)
        blurred = F.conv2d(img + noise, w3, padding=1, groups=img.shape[1]).clamp(0, 1)
        out = torch.where(gate.view(B, 1, 1, 1).expand_as(img), blurred, img)
        return out, mask

    gate = torch.zeros(B, dtype=torch.bool)
    if _u.USE_PHILOX:
        sig = torch.zeros(B, dtype=img.dtype)
        for i in range(B):
            gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "jpeg_approx"))
            if sample_bool(p, gn):
                gate[i] = True
                sig[i] = sample_uniform(smin, smax, gn)
        z = philox_normal_batch(lambda i: per_item_seed(seed_base, epoch, step, i, "jpeg_approx"),
                                B, tuple(img.shape[1:]), img.device, img.dtype)
        noise_d = z * sig.to(img.device).view(B, 1, 1, 1)
    else:
        noise = torch.zeros_like(img.cpu()) if img.is_cuda else torch.zeros_like(img)
        for i in range(B):
            gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "jpeg_approx"))
            if sample_bool(p, gn):
                gate[i] = True
                sigma = sample_uniform(smin, smax, gn)
                noise[i] = torch.empty_like(img[0].cpu() if img.is_cuda else img[0]).normal_(0.0, 1.0, generator=gn) * sigma
        noise_d = noise.to(img.device)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    # 3×3 box blur shared across batch
    kbox = torch.full((1, 1, 3, 3), 1.0 / 9.0, dtype=img.dtype, device=img.device)
    w3 = kbox.expand(img.shape[1], 1, 3, 3)
    blurred = F.conv2d(img + noise_d, w3, padding=1, groups=img.shape[1]).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), blurred, img)
    return out, mask


# ─── batch 5: paper / content overlays ────────────────────────────────
def stains(img, mask, spec, seed_base, epoch, step):
    """Soft elliptical blobs blended toward a stain colour. Vectorized over B."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (1, 5))
    rlo, rhi = spec.get("radius_frac_range", (0.05, 0.2))
    alo, ahi = spec.get("alpha_range", (0.2, 0.5))
    vlo, vhi = spec.get("value_range", (0.3, 0.7))
    n_max = int(nhi)

    gate = torch.zeros(B, dtype=torch.bool)
    alpha_acc = torch.zeros(B, dtype=img.dtype)
    val_acc = torch.zeros(B, dtype=img.dtype)
    n_per_item = torch.zeros(B, dtype=torch.long)
    cy_t = torch.zeros(B, n_max, dtype=img.dtype)
    cx_t = torch.zeros(B, n_max, dtype=img.dtype)
    rx_t = torch.ones(B, n_max, dtype=img.dtype)
    ry_t = torch.ones(B, n_max, dtype=img.dtype)
    ang_t = torch.zeros(B, n_max, dtype=img.dtype)
    short = float(min(H, W))
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "stains"))
        if sample_bool(p, g):
            gate[i] = True
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            n_per_item[i] = n
            alpha_acc[i] = sample_uniform(alo, ahi, g)
            val_acc[i] = sample_uniform(vlo, vhi, g)
            for s in range(n):
                cy_t[i, s] = sample_uniform(0, H - 1, g)
                cx_t[i, s] = sample_uniform(0, W - 1, g)
                rx_t[i, s] = sample_uniform(rlo, rhi, g) * short
                ry_t[i, s] = sample_uniform(rlo, rhi, g) * short
                ang_t[i, s] = sample_uniform(0, math.pi, g)
    cy_d = cy_t.to(img.device); cx_d = cx_t.to(img.device)
    rx_d = rx_t.to(img.device); ry_d = ry_t.to(img.device)
    ang_d = ang_t.to(img.device)
    nper_d = n_per_item.to(img.device)
    gate_d = gate.to(img.device)

    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    yy_b = yy.unsqueeze(0); xx_b = xx.unsqueeze(0)
    blob = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for s in range(n_max):
        valid = (s < nper_d).view(B, 1, 1)
        cy = cy_d[:, s].view(B, 1, 1); cx = cx_d[:, s].view(B, 1, 1)
        rx = rx_d[:, s].view(B, 1, 1); ry = ry_d[:, s].view(B, 1, 1)
        ca = torch.cos(ang_d[:, s]).view(B, 1, 1)
        sa = torch.sin(ang_d[:, s]).view(B, 1, 1)
        dx_ = xx_b - cx; dy_ = yy_b - cy
        ex = ca * dx_ + sa * dy_
        ey = -sa * dx_ + ca * dy_
        ell = torch.exp(-((ex / rx) ** 2 + (ey / ry) ** 2))
        ell = torch.where(valid, ell, torch.zeros_like(ell))
        blob = torch.maximum(blob, ell)
    blob_d = blob.unsqueeze(1)
    alpha_d = alpha_acc.to(img.device).view(B, 1, 1, 1)
    val_d = val_acc.to(img.device).view(B, 1, 1, 1)
    gate_d4 = gate_d.view(B, 1, 1, 1)
    bmask = (blob_d * alpha_d).expand_as(img)
    blended = (img * (1.0 - bmask) + val_d * bmask).clamp(0, 1)
    out = torch.where(gate_d4.expand_as(img), blended, img)
    return out, mask


def creases(img, mask, spec, seed_base, epoch, step):
    """Linear shadow stripes (paper creases). Each crease is a line with
    exponential falloff perpendicular distance, blended as darkening.

    spec = {"p": prob, "n_range": (lo, hi), "width_px": float,
            "darkness_range": (lo, hi)}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (1, 3))
    width = float(spec.get("width_px", 6.0))
    dlo, dhi = spec.get("darkness_range", (0.1, 0.35))
    gate = torch.zeros(B, dtype=torch.bool)
    dark_acc = torch.zeros(B, dtype=img.dtype)
    # Sample crease params per item on CPU (a few scalars), render all lines
    # batched on the image device (Phase 5: was per-line full-res exp on CPU).
    nmax = int(nhi)
    prm = torch.zeros(B, nmax, 4, dtype=img.dtype)   # cx, cy, sin, cos
    valid = torch.zeros(B, nmax, dtype=torch.bool)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "creases"))
        if sample_bool(p, g):
            gate[i] = True
            dark_acc[i] = sample_uniform(dlo, dhi, g)
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            for k in range(min(n, nmax)):
                cx = sample_uniform(0, W - 1, g)
                cy = sample_uniform(0, H - 1, g)
                ang = sample_uniform(0, math.pi, g)
                prm[i, k] = torch.tensor([cx, cy, math.sin(ang), math.cos(ang)], dtype=img.dtype)
                valid[i, k] = True
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    prm_d = prm.to(img.device); valid_d = valid.to(img.device)
    cx = prm_d[..., 0].view(B, nmax, 1, 1); cy = prm_d[..., 1].view(B, nmax, 1, 1)
    sa = prm_d[..., 2].view(B, nmax, 1, 1); ca = prm_d[..., 3].view(B, nmax, 1, 1)
    dist = ((xx - cx) * sa - (yy - cy) * ca).abs()                      # (B, nmax, H, W)
    line = torch.exp(-(dist * dist) / (2 * width * width))
    line = torch.where(valid_d.view(B, nmax, 1, 1), line, torch.zeros_like(line))
    shade_d = line.amax(dim=1, keepdim=True)                            # (B, 1, H, W)
    dark_d = dark_acc.to(img.device).view(B, 1, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    factor = (1.0 - dark_d * shade_d).expand_as(img).clamp(0, 1)
    new_img = (img * factor).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), new_img, img)
    return out, mask


def specular_highlight(img, mask, spec, seed_base, epoch, step):
    """1-3 large Gaussian bright spots. Vectorized over B."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (1, 3))
    slo, shi = spec.get("sigma_frac_range", (0.05, 0.15))
    ilo, ihi = spec.get("intensity_range", (0.3, 0.7))
    n_max = int(nhi)
    gate = torch.zeros(B, dtype=torch.bool)
    n_per_item = torch.zeros(B, dtype=torch.long)
    cy_t = torch.zeros(B, n_max, dtype=img.dtype)
    cx_t = torch.zeros(B, n_max, dtype=img.dtype)
    sig_t = torch.ones(B, n_max, dtype=img.dtype)
    int_t = torch.zeros(B, n_max, dtype=img.dtype)
    short = float(min(H, W))
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "specular_highlight"))
        if sample_bool(p, g):
            gate[i] = True
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            n_per_item[i] = n
            for s in range(n):
                cy_t[i, s] = sample_uniform(0, H - 1, g)
                cx_t[i, s] = sample_uniform(0, W - 1, g)
                sig_t[i, s] = sample_uniform(slo, shi, g) * short
                int_t[i, s] = sample_uniform(ilo, ihi, g)
    cy_d = cy_t.to(img.device); cx_d = cx_t.to(img.device)
    sig_d = sig_t.to(img.device); int_d = int_t.to(img.device)
    nper_d = n_per_item.to(img.device); gate_d = gate.to(img.device)
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    yy_b = yy.unsqueeze(0); xx_b = xx.unsqueeze(0)
    add = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for s in range(n_max):
        valid = (s < nper_d).view(B, 1, 1)
        cy = cy_d[:, s].view(B, 1, 1); cx = cx_d[:, s].view(B, 1, 1)
        sig = sig_d[:, s].view(B, 1, 1); i_s = int_d[:, s].view(B, 1, 1)
        gaus = torch.exp(-((xx_b - cx) ** 2 + (yy_b - cy) ** 2) / (2 * sig * sig)) * i_s
        gaus = torch.where(valid, gaus, torch.zeros_like(gaus))
        add = torch.maximum(add, gaus)
    add_d = add.unsqueeze(1)
    gate_d4 = gate_d.view(B, 1, 1, 1)
    new_img = (img + add_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d4.expand_as(img), new_img, img)
    return out, mask


def specular_streaks(img, mask, spec, seed_base, epoch, step):
    """1-3 long line-shaped bright reflections. Vectorized over B."""
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    nlo, nhi = spec.get("n_range", (1, 3))
    llo, lhi = spec.get("length_frac_range", (0.2, 0.6))
    thickness = float(spec.get("thickness_px", 4.0))
    ilo, ihi = spec.get("intensity_range", (0.3, 0.6))
    n_max = int(nhi)
    gate = torch.zeros(B, dtype=torch.bool)
    n_per_item = torch.zeros(B, dtype=torch.long)
    x0_t = torch.zeros(B, n_max, dtype=img.dtype)
    y0_t = torch.zeros(B, n_max, dtype=img.dtype)
    x1_t = torch.zeros(B, n_max, dtype=img.dtype)
    y1_t = torch.zeros(B, n_max, dtype=img.dtype)
    int_t = torch.zeros(B, n_max, dtype=img.dtype)
    short = float(min(H, W))
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "specular_streaks"))
        if sample_bool(p, g):
            gate[i] = True
            n = int(torch.empty(1).uniform_(nlo, nhi + 1, generator=g).item())
            n_per_item[i] = n
            for s in range(n):
                x0 = sample_uniform(0, W - 1, g); y0 = sample_uniform(0, H - 1, g)
                length = sample_uniform(llo, lhi, g) * short
                ang = sample_uniform(0, math.tau, g)
                x0_t[i, s] = x0; y0_t[i, s] = y0
                x1_t[i, s] = x0 + length * math.cos(ang)
                y1_t[i, s] = y0 + length * math.sin(ang)
                int_t[i, s] = sample_uniform(ilo, ihi, g)
    x0_d = x0_t.to(img.device); y0_d = y0_t.to(img.device)
    x1_d = x1_t.to(img.device); y1_d = y1_t.to(img.device)
    int_d = int_t.to(img.device); nper_d = n_per_item.to(img.device)
    gate_d = gate.to(img.device)
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    yy_b = yy.unsqueeze(0); xx_b = xx.unsqueeze(0)
    add = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for s in range(n_max):
        valid = (s < nper_d).view(B, 1, 1)
        x0 = x0_d[:, s].view(B, 1, 1); y0 = y0_d[:, s].view(B, 1, 1)
        x1 = x1_d[:, s].view(B, 1, 1); y1 = y1_d[:, s].view(B, 1, 1)
        dx = x1 - x0; dy = y1 - y0
        seg_len2 = dx * dx + dy * dy + 1e-8
        t = (((xx_b - x0) * dx + (yy_b - y0) * dy) / seg_len2).clamp(0, 1)
        px = x0 + t * dx; py = y0 + t * dy
        dist = torch.sqrt((xx_b - px) ** 2 + (yy_b - py) ** 2)
        falloff = torch.exp(-dist * dist / (2 * thickness * thickness)) * int_d[:, s].view(B, 1, 1)
        falloff = torch.where(valid, falloff, torch.zeros_like(falloff))
        add = torch.maximum(add, falloff)
    add_d = add.unsqueeze(1)
    gate_d4 = gate_d.view(B, 1, 1, 1)
    new_img = (img + add_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d4.expand_as(img), new_img, img)
    return out, mask


# ─── batch 6: complex (CLAHE + paper_texture_overlay) ────────────────
def clahe(img, mask, spec, seed_base, epoch, step):
    """Contrast Limited Adaptive Histogram Equalization (per-tile hist EQ),
    pure torch. tile_size matches cv2.createCLAHE default 8×8.

    spec = {"p": prob, "clip_limit": float (clip per tile bin), "tile_size": int,
            "n_bins": int}

    Bit-exact tolerance: histogram bin assignment via floor() can flip at exact
    bin boundaries between CPU/CUDA fp32 rounding. atol class is 1e-4 (conv-style);
    if observed > 1e-4, relax to 1e-3 in TOLERANCE map with docstring note.
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    clip_limit = float(spec.get("clip_limit", 2.0))
    tile_size = int(spec.get("tile_size", 8))
    n_bins = int(spec.get("n_bins", 256))
    gate = torch.zeros(B, dtype=torch.bool)
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "clahe"))
        if sample_bool(p, gn):
            gate[i] = True
    gate_d = gate.to(img.device).view(B, 1, 1, 1)

    # Chunk over Bx (B·C) to cap VRAM peak. With B=8, C=3 → Bx=24, default
    # chunk_bx=8 → per-chunk peak ≈ 1/3 of monolithic (was 1.7 GB → ~580 MiB,
    # below the 500 MB target with breathing room from accumulated frees).
    Bx = B * C
    chunk_bx = int(spec.get("chunk_bx", 8))
    flat = img.reshape(Bx, H, W)
    # Tile dimensions — ceil so Hp/Wp >= H/W (pad is non-negative)
    th = max(1, (H + tile_size - 1) // tile_size)
    tw = max(1, (W + tile_size - 1) // tile_size)
    Hp = th * tile_size; Wp = tw * tile_size
    pad_h = Hp - H; pad_w = Wp - W
    boundaries = torch.linspace(0.0, 1.0, n_bins + 1, device=img.device, dtype=img.dtype)
    tile_area = tile_size * tile_size
    clip = clip_limit * tile_area / n_bins

    eq = torch.empty_like(flat)
    for cstart in range(0, Bx, chunk_bx):
        cend = min(cstart + chunk_bx, Bx)
        chunk = flat[cstart:cend]
        if pad_h > 0 or pad_w > 0:
            chunk = F.pad(chunk.unsqueeze(1), (0, pad_w, 0, pad_h), mode="reflect").squeeze(1)
        bxc = cend - cstart
        tiled = chunk.view(bxc, th, tile_size, tw, tile_size).permute(0, 1, 3, 2, 4).contiguous()
        bin_idx = torch.bucketize(tiled.clamp(0, 1), boundaries).clamp(0, n_bins - 1)
        flat_bins = bin_idx.reshape(bxc, th, tw, -1)
        counts = torch.zeros(bxc, th, tw, n_bins, dtype=img.dtype, device=img.device)
        counts.scatter_add_(-1, flat_bins, torch.ones_like(flat_bins, dtype=img.dtype))
        excess = (counts - clip).clamp(min=0).sum(dim=-1, keepdim=True)
        counts_clipped = counts.clamp(max=clip) + excess / n_bins
        del counts, excess
        cdf = torch.cumsum(counts_clipped, dim=-1)
        cdf = cdf / cdf[..., -1:].clamp(min=1e-8)
        cdf_flat = cdf.view(bxc * th * tw, n_bins)
        bin_flat = bin_idx.reshape(bxc * th * tw, tile_size * tile_size)
        looked_flat = torch.gather(cdf_flat, 1, bin_flat)
        del cdf, cdf_flat, bin_flat, bin_idx, counts_clipped
        looked = looked_flat.view(bxc, th, tw, tile_size, tile_size)
        out_padded = looked.permute(0, 1, 3, 2, 4).contiguous().view(bxc, Hp, Wp)
        eq[cstart:cend] = out_padded[..., :H, :W]
        del looked, looked_flat, out_padded, chunk
    eq = eq.reshape(B, C, H, W)
    out = torch.where(gate_d.expand_as(img), eq, img)
    return out, mask


def paper_texture_overlay(img, mask, spec, seed_base, epoch, step):
    """Multiplicative procedural texture overlay simulating paper grain.

    spec = {"p": prob,
            "blend_strength": float (overlay magnitude, default 0.3),
            "sigma": float (low-res cell size for the texture, default 30)}

    Generates texture per item by sampling a low-res Gaussian random field
    (size ≈ (H/sigma, W/sigma)), bilinear-upsampling to (H, W), z-normalising
    it to a centred multiplicative factor in [1 - strength, 1 + strength],
    then multiplying the image.
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    strength = float(spec.get("blend_strength", 0.3))
    sigma = float(spec.get("sigma", 30.0))
    gate = torch.zeros(B, dtype=torch.bool)
    hl = max(4, int(H / sigma)); wl = max(4, int(W / sigma))
    raw = torch.zeros(B, 1, hl, wl, dtype=img.dtype)
    for i in range(B):
        gn = cpu_generator(per_item_seed(seed_base, epoch, step, i, "paper_texture_overlay"))
        if sample_bool(p, gn):
            gate[i] = True
            raw[i, 0] = torch.empty(hl, wl).normal_(0.0, 1.0, generator=gn)
    # Batched upsample + per-item z-normalise on the image device (Phase 5).
    up = F.interpolate(raw.to(img.device), size=(H, W), mode="bilinear", align_corners=False)
    mu = up.mean(dim=(2, 3), keepdim=True)
    sd = up.std(dim=(2, 3), keepdim=True)
    up = (up - mu) / (sd + 1e-6)
    texture_d = (1.0 + 0.15 * up).clamp(1.0 - strength, 1.0 + strength)
    # Non-gated items keep texture=1 (they are masked by gate below anyway).
    texture_d = torch.where(gate.to(img.device).view(B, 1, 1, 1), texture_d, torch.ones_like(texture_d))
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    new_img = (img * texture_d.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), new_img, img)
    return out, mask


def background_compose(img, mask, spec, seed_base, epoch, step):
    """Compose the paper image onto a random background outside the mask.

        composed = img * mask + bg * (1 - mask)

    Background source per item, in priority order:
      - With probability `p_photo`, draw from `photo_dir` (a directory of
        real photos — desk / floor / scene / etc). Use this when you have
        real-context images that match the deployment domain.
      - Else with probability `p_dtd`, draw from a DTD texture cache (a
        stacked numpy `.npy` of pre-cropped textures).
      - Else generate procedural noise: low-resolution Gaussian random
        bilinear-upsampled to (H, W), normalised, multiplied by a per-item
        brightness factor in `bg_brightness_range`.

    spec = {"p": prob,
            "photo_dir": Optional[str] (dir of real photos — recurses,
                accepts jpg/jpeg/png/bmp/webp),
            "p_photo": float (prob of pulling from photo_dir vs other sources),
            "dtd_cache_path": Optional[str] (path to .npy texture bank),
            "p_dtd": float (prob of pulling from DTD vs procedural noise),
            "bg_brightness_range": (lo, hi),
            "sigma": float (smoothness for procedural noise),
            "channel_jitter": float (per-channel multiplier variance)}

    The paper_mask is interpreted as 1.0 = paper interior, 0.0 = outside (the
    region that gets replaced by `bg`).
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    p_dtd = float(spec.get("p_dtd", 0.5))
    blo, bhi = spec.get("bg_brightness_range", (0.6, 1.0))
    sigma = float(spec.get("sigma", 40.0))
    ch_jitter = float(spec.get("channel_jitter", 0.1))
    dtd_cache_path = spec.get("dtd_cache_path", None)

    photo_dir = spec.get("photo_dir", None)

    # Try to load DTD cache once (per-process, cached on the spec dict for
    # subsequent calls to skip the IO).
    dtd_textures = spec.get("_dtd_textures_cached", None)
    if dtd_textures is None and dtd_cache_path:
        from pathlib import Path as _P
        import numpy as _np
        cp = _P(dtd_cache_path).expanduser()
        if cp.exists():
            arr = _np.load(str(cp))
            # Expected shape: (N, 3, h, w) or (N, h, w, 3) — accept either
            t = torch.from_numpy(arr)
            if t.dim() == 4 and t.shape[-1] == 3:
                t = t.permute(0, 3, 1, 2).contiguous()
            dtd_textures = t.float() / (255.0 if t.dtype == torch.uint8 else 1.0)
            spec["_dtd_textures_cached"] = dtd_textures

    # Real-photo directory cache: lazily scan `photo_dir` once per process
    # for image files, decode on first use of each image (cached).
    # Use this for "background = real desktop/floor photos" instead of (or in
    # addition to) DTD textures. Files are accepted lazily — large dirs do
    # not force a one-shot decode of everything at process start.
    photo_paths = spec.get("_photo_paths_cached", None)
    photo_cache = spec.get("_photo_decoded_cache", None)
    if photo_paths is None and photo_dir:
        from pathlib import Path as _P
        pd = _P(photo_dir).expanduser()
        if pd.is_dir():
            exts = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
            photo_paths = sorted(
                str(p) for p in pd.rglob("*")
                if p.is_file() and p.suffix.lower() in exts
            )
            spec["_photo_paths_cached"] = photo_paths
            spec["_photo_decoded_cache"] = {}
            photo_cache = spec["_photo_decoded_cache"]

    def _load_photo_as_tensor(idx: int) -> torch.Tensor:
        """Decode a single photo on first access, cache the tensor."""
        if idx in photo_cache:
            return photo_cache[idx]
        from PIL import Image  # lazy import (so paraug isn't pillow-required)
        import numpy as _np_local
        pil = Image.open(photo_paths[idx]).convert("RGB")
        arr = _np_local.asarray(pil)
        t = torch.from_numpy(arr).permute(2, 0, 1).float() / 255.0
        photo_cache[idx] = t
        return t

    if mask is None:
        # Nothing to compose against — pass-through. Composing onto an all-mask
        # area degenerates to img unchanged.
        return img, mask

    # Per-item RNG sample of: gate, dtd / photo / procedural choice,
    # brightness, channel jitter, procedural seed (per-pixel via low-res
    # random tensor allocation seed), texture index (if available).
    p_photo = float(spec.get("p_photo", 0.5)) if photo_paths else 0.0

    gate = torch.zeros(B, dtype=torch.bool)
    use_dtd = torch.zeros(B, dtype=torch.bool)
    use_photo = torch.zeros(B, dtype=torch.bool)
    bright = torch.ones(B, dtype=img.dtype)
    ch_mult = torch.ones(B, 3, dtype=img.dtype)
    dtd_idx = torch.zeros(B, dtype=torch.long)
    photo_idx = torch.zeros(B, dtype=torch.long)
    # Pre-sample low-resolution procedural noise on CPU (bit-exact RNG)
    hl = max(4, int(H / sigma)); wl = max(4, int(W / sigma))
    proc_low = torch.zeros(B, 3, hl, wl, dtype=img.dtype)
    n_dtd = dtd_textures.shape[0] if dtd_textures is not None else 0
    n_photo = len(photo_paths) if photo_paths else 0
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "background_compose"))
        if not sample_bool(p, g):
            continue
        gate[i] = True
        bright[i] = sample_uniform(blo, bhi, g)
        for c in range(3):
            ch_mult[i, c] = 1.0 + sample_uniform(-ch_jitter, ch_jitter, g)
        # Pick a bg source: photo > dtd > procedural. Both flags can never
        # be True simultaneously; the sequence keeps RNG state deterministic
        # regardless of which branch wins.
        if n_photo > 0 and sample_bool(p_photo, g):
            use_photo[i] = True
            photo_idx[i] = int(torch.empty(1).uniform_(0, n_photo, generator=g).item())
        elif n_dtd > 0 and sample_bool(p_dtd, g):
            use_dtd[i] = True
            dtd_idx[i] = int(torch.empty(1).uniform_(0, n_dtd, generator=g).item())
        proc_low[i] = torch.empty(3, hl, wl).normal_(0.0, 1.0, generator=g)

    # Move to device
    gate_d = gate.to(img.device)
    use_dtd_d = use_dtd.to(img.device)
    bright_d = bright.to(img.device).view(B, 1, 1, 1)
    ch_mult_d = ch_mult.to(img.device).view(B, 3, 1, 1)
    proc_low_d = proc_low.to(img.device)

    # Procedural bg: upsample low-res random to (H, W), normalise to [0.5±0.3]
    proc_full = F.interpolate(proc_low_d, size=(H, W),
                               mode="bilinear", align_corners=False)
    pm = proc_full.mean(dim=(2, 3), keepdim=True)
    ps = proc_full.std(dim=(2, 3), keepdim=True).clamp(min=1e-6)
    proc_full = ((proc_full - pm) / ps * 0.15 + 0.5).clamp(0, 1)
    bg = proc_full * ch_mult_d * bright_d

    # DTD bg: pull selected texture per item, resize to (H, W)
    if n_dtd > 0 and use_dtd.any().item():
        dtd_d = dtd_textures.to(img.device)
        for i in range(B):
            if use_dtd[i]:
                tex = dtd_d[int(dtd_idx[i])]
                if tex.shape[-2:] != (H, W):
                    tex = F.interpolate(tex.unsqueeze(0), size=(H, W),
                                         mode="bilinear", align_corners=False)[0]
                bg[i] = (tex * ch_mult_d[i] * bright_d[i, 0]).clamp(0, 1)

    # Real-photo bg: load (lazily) + resize per item
    if n_photo > 0 and use_photo.any().item():
        for i in range(B):
            if use_photo[i]:
                pho = _load_photo_as_tensor(int(photo_idx[i]))
                pho = pho.to(img.device)
                if pho.shape[-2:] != (H, W):
                    pho = F.interpolate(pho.unsqueeze(0), size=(H, W),
                                         mode="bilinear", align_corners=False)[0]
                bg[i] = (pho * ch_mult_d[i] * bright_d[i, 0]).clamp(0, 1)

    composed = img * mask + bg * (1.0 - mask)
    composed = composed.clamp(0, 1)
    out = torch.where(gate_d.view(B, 1, 1, 1).expand_as(img), composed, img)
    return out, mask


# ─── 2026-05-23 v0.5.0 — OOD photo-realism primitives ────────────────
# Added to close the synth-vs-real gap for printed-paper deployments
# (forms, receipts, exam papers, etc.): a segmentation model trained on
# synthetic background-composited paper saturates at near-perfect IoU on
# synthetic val yet drops sharply on real phone photos. The gap is
# dominated by photometric realism (lighting / colour / glare / focus)
# that earlier primitives only partially modelled. See the `OOD_PRINTED_PAPER`
# preset for a recommended config that combines these with the layout helper.


def spatial_color_cast(img, mask, spec, seed_base, epoch, step):
    """Low-frequency 2D additive colour shift — simulates a non-uniform
    indoor-lighting cast that varies across the frame (warmer ceiling-LED
    side, cooler window side, etc).

    `hue_shift` rotates the entire frame by a single per-image angle;
    real indoor scenes shift colour spatially. This primitive samples a
    low-resolution random RGB shift map and bilinear-upsamples it to the
    full image, then adds it.

    spec = {"p": prob, "amplitude": float (peak per-channel shift, 0-0.3
            typical), "sigma": float (low-res cell ~ min(H,W)/sigma)}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    amp = float(spec.get("amplitude", 0.08))
    sigma = float(spec.get("sigma", 8.0))
    if C != 3:
        # Non-RGB inputs pass through; spatial cast is RGB-specific.
        return img, mask
    hl = max(2, int(H / sigma)); wl = max(2, int(W / sigma))
    gate = torch.zeros(B, dtype=torch.bool)
    low = torch.zeros(B, 3, hl, wl, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "spatial_color_cast"))
        if sample_bool(p, g):
            gate[i] = True
            low[i] = torch.empty(3, hl, wl).uniform_(-amp, amp, generator=g)
    low_d = low.to(img.device)
    field = F.interpolate(low_d, size=(H, W), mode="bilinear",
                           align_corners=False)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    shifted = (img + field).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), shifted, img)
    return out, mask


def paper_glare(img, mask, spec, seed_base, epoch, step):
    """Large elliptical bright reflection covering 10-30% of the frame —
    models a paper-surface glare from ceiling lights at oblique angles.

    Differs from `specular_streaks` (which makes thin line-shaped
    highlights for typical glossy specular) and `specular_highlight`
    (small point highlights): real glossy paper under angled lighting
    produces a *broad elliptical wash* over a large region, often
    elongated along the page diagonal.

    spec = {"p": prob,
            "area_frac_range": (lo, hi)  # axes radii in image-short units,
            "aspect_range": (lo, hi)     # major/minor axis ratio (1.0=circle, 4.0=streak),
            "intensity_range": (lo, hi)  # peak additive brightness 0-1,
            "softness": float            # falloff Gaussian sigma fraction of axis}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    alo, ahi = spec.get("area_frac_range", (0.10, 0.30))
    rlo, rhi = spec.get("aspect_range", (1.5, 4.0))
    ilo, ihi = spec.get("intensity_range", (0.25, 0.55))
    softness = float(spec.get("softness", 0.5))
    short = float(min(H, W))
    gate = torch.zeros(B, dtype=torch.bool)
    cx_t = torch.zeros(B, dtype=img.dtype)
    cy_t = torch.zeros(B, dtype=img.dtype)
    ax_t = torch.zeros(B, dtype=img.dtype)
    bx_t = torch.zeros(B, dtype=img.dtype)
    ang_t = torch.zeros(B, dtype=img.dtype)
    int_t = torch.zeros(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "paper_glare"))
        if sample_bool(p, g):
            gate[i] = True
            cx_t[i] = sample_uniform(0, W - 1, g)
            cy_t[i] = sample_uniform(0, H - 1, g)
            # area_frac taken as the major-axis radius / short side
            major = sample_uniform(alo, ahi, g) * short
            ratio = sample_uniform(rlo, rhi, g)
            minor = major / ratio
            ax_t[i] = major
            bx_t[i] = minor
            ang_t[i] = sample_uniform(0, math.pi, g)
            int_t[i] = sample_uniform(ilo, ihi, g)
    cx_d = cx_t.to(img.device); cy_d = cy_t.to(img.device)
    ax_d = ax_t.to(img.device); bx_d = bx_t.to(img.device)
    ang_d = ang_t.to(img.device); int_d = int_t.to(img.device)
    gate_d = gate.to(img.device)
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    # Per-item: distance in rotated ellipse coords, normalised by axis.
    cos_a = torch.cos(ang_d); sin_a = torch.sin(ang_d)
    yy_b = yy[None]; xx_b = xx[None]
    dx = xx_b - cx_d.view(B, 1, 1)
    dy = yy_b - cy_d.view(B, 1, 1)
    # Rotate into ellipse-aligned frame
    u = dx * cos_a.view(B, 1, 1) + dy * sin_a.view(B, 1, 1)
    v = -dx * sin_a.view(B, 1, 1) + dy * cos_a.view(B, 1, 1)
    a_safe = ax_d.view(B, 1, 1).clamp(min=1e-3)
    b_safe = bx_d.view(B, 1, 1).clamp(min=1e-3)
    r2 = (u / a_safe) ** 2 + (v / b_safe) ** 2
    # Gaussian falloff in normalised-radius space (softness sigma in fractions)
    sig_safe = max(softness, 1e-3)
    falloff = torch.exp(-r2 / (2 * sig_safe ** 2)) * int_d.view(B, 1, 1)
    add = falloff.unsqueeze(1)
    gate_d4 = gate_d.view(B, 1, 1, 1)
    new_img = (img + add.expand_as(img)).clamp(0, 1)
    out = torch.where(gate_d4.expand_as(img), new_img, img)
    return out, mask


def white_balance_shift(img, mask, spec, seed_base, epoch, step):
    """Approximate camera white-balance shift along the Planckian
    blackbody locus (3000K-8000K range). Multiplies per-channel by a
    temperature-derived (R, G, B) gain.

    Unlike `hue_shift` (HSV rotation that preserves grey) this physically
    models how a camera at the wrong WB tints the whole frame towards a
    blue/orange axis. `color_jitter`'s per-channel jitter is uniform-random
    in 3D while WB is constrained to the 1D blackbody curve — the
    practical visible difference is "real-camera-looking" vs "cyberpunk".

    spec = {"p": prob, "temp_range_K": (lo, hi)} — Kelvin range to sample.
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    tlo, thi = spec.get("temp_range_K", (3000.0, 8000.0))
    if C != 3:
        return img, mask
    gate = torch.zeros(B, dtype=torch.bool)
    gains = torch.ones(B, 3, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "white_balance_shift"))
        if sample_bool(p, g):
            gate[i] = True
            t = sample_uniform(tlo, thi, g)
            # Planckian-locus approximation (Robertson / Charity convention):
            # at 6500K all gains ≈ 1. Below 6500K → R warm gain, above → B cool.
            # Use linear gain in delta-temperature (matched to a 6500K reference).
            dt = (t - 6500.0) / 6500.0  # ∈ ~[-0.54, +0.23]
            # R gain decreases as T increases (cooler), B gain increases.
            r_gain = 1.0 - 0.35 * dt
            g_gain = 1.0 - 0.05 * dt        # G changes slightly
            b_gain = 1.0 + 0.40 * dt
            gains[i, 0] = r_gain
            gains[i, 1] = g_gain
            gains[i, 2] = b_gain
    gains_d = gains.to(img.device).view(B, 3, 1, 1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    shifted = (img * gains_d).clamp(0, 1)
    out = torch.where(gate_d.expand_as(img), shifted, img)
    return out, mask


def defocus_blur(img, mask, spec, seed_base, epoch, step):
    """Spatially-varying gaussian blur — models autofocus error where one
    region (typically the foreground edge) is sharp while another region
    is out-of-focus. Mixes a fully-blurred copy with the input using a
    low-frequency soft mask.

    Differs from `gaussian_blur` (uniform whole-frame blur) and
    `motion_blur` (line-shaped kernel) — both of those are global, defocus
    is local.

    spec = {"p": prob, "sigma_range": (lo, hi)  # blur radius in pixels,
            "n_focus_regions": int (small number of in-focus blobs),
            "focus_frac_range": (lo, hi)  # in-focus mask fraction range}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    slo, shi = spec.get("sigma_range", (1.5, 3.5))
    flo, fhi = spec.get("focus_frac_range", (0.20, 0.45))
    n_focus = int(spec.get("n_focus_regions", 1))
    gate = torch.zeros(B, dtype=torch.bool)
    sigmas = torch.zeros(B, dtype=img.dtype)
    # per-item: focus mask = sum of Gaussian blobs (in-focus = 1, blurred = 0).
    # sample blob centres + axes per item.
    blob_cx = torch.zeros(B, n_focus, dtype=img.dtype)
    blob_cy = torch.zeros(B, n_focus, dtype=img.dtype)
    blob_r = torch.zeros(B, n_focus, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "defocus_blur"))
        if sample_bool(p, g):
            gate[i] = True
            sigmas[i] = sample_uniform(slo, shi, g)
            focus_frac = sample_uniform(flo, fhi, g)
            target_radius = math.sqrt(focus_frac * H * W / (n_focus * math.pi))
            for k in range(n_focus):
                blob_cx[i, k] = sample_uniform(0, W - 1, g)
                blob_cy[i, k] = sample_uniform(0, H - 1, g)
                blob_r[i, k] = target_radius
    # Build the blurred version (single sigma per item — group by sigma if
    # we wanted to be fancy; for clarity, blur whole batch with the max
    # sigma and only the per-item gate selects).
    if not gate.any():
        return img, mask
    sigmas_d = sigmas.to(img.device)
    max_sigma = float(sigmas[gate].max().item())
    k = max(3, int(2 * math.ceil(3.0 * max_sigma) + 1))
    kk = torch.arange(-(k // 2), k // 2 + 1, dtype=img.dtype, device=img.device)
    # Use the per-batch max sigma to define a single conv kernel; per-item
    # mixing then weights between blurred and original.
    g_kernel = torch.exp(-kk * kk / (2 * max_sigma ** 2))
    g_kernel = g_kernel / g_kernel.sum()
    kx = g_kernel.view(1, 1, 1, k).expand(C, 1, 1, k)
    ky = g_kernel.view(1, 1, k, 1).expand(C, 1, k, 1)
    pad = k // 2
    # Separable Gaussian: pad reflect once, kx along W, then ky along H.
    # Explicit `del padded` after kx so the (B, C, H+2pad, W+2pad) copy
    # (~257 MB at bs=20 canvas=1024 pad=5) frees before ky's intermediate.
    padded = F.pad(img, (pad, pad, pad, pad), mode="reflect")
    blurred = F.conv2d(padded, kx, groups=C)
    del padded
    blurred = F.conv2d(blurred, ky, groups=C)
    # Build in-focus mask (B, 1, H, W) per item as max over Gaussian blobs
    yy, xx = _xy_coords(H, W, img.dtype, img.device)
    yy_b = yy[None]; xx_b = xx[None]
    focus = torch.zeros(B, H, W, dtype=img.dtype, device=img.device)
    for kidx in range(n_focus):
        cx = blob_cx[:, kidx].to(img.device).view(B, 1, 1)
        cy = blob_cy[:, kidx].to(img.device).view(B, 1, 1)
        r = blob_r[:, kidx].to(img.device).view(B, 1, 1).clamp(min=1.0)
        d2 = (xx_b - cx) ** 2 + (yy_b - cy) ** 2
        focus = torch.maximum(focus, torch.exp(-d2 / (2 * r ** 2)))
    focus = focus.unsqueeze(1)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    mixed = img * focus + blurred * (1.0 - focus)
    out = torch.where(gate_d.expand_as(img), mixed, img)
    return out, mask


# ─── 2026-05-27 v0.7.0 — modern aug primitives ────────────────────────
# Added to fill the "everyone else has these" gap: random_erasing /
# grid_mask are per-item region drop, cutmix / mixup are batch-level
# pair mixing. Per-item RNG flows through the same `per_item_seed` chain
# as the rest, so CPU/GPU parity is preserved.


def random_erasing(img, mask, spec, seed_base, epoch, step):
    """Random rectangular region replaced with a noise sample.

    Closest sibling: `cutout` (constant fill). RandomErasing samples each
    erased pixel independently, which is the original Zhong-2017 definition
    and produces a more aggressive aug signal than constant-fill cutout.

    spec = {"p": prob, "size_frac_range": (lo, hi),
            "aspect_range": (lo, hi),  # h/w aspect
            "fill_mode": "normal" | "uniform" | "constant",
            "fill_value": float (used when fill_mode="constant")}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    slo, shi = spec.get("size_frac_range", (0.02, 0.2))
    arlo, arhi = spec.get("aspect_range", (0.3, 3.3))
    fill_mode = spec.get("fill_mode", "normal")
    fill_value = float(spec.get("fill_value", 0.5))

    gate = torch.zeros(B, dtype=torch.bool)
    region_mask = torch.zeros(B, 1, H, W, dtype=img.dtype)
    # Per-item rectangle + fill noise (CPU-side for parity)
    fill_tensor = torch.zeros_like(img.cpu()) if img.is_cuda else torch.zeros_like(img)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "random_erasing"))
        if not sample_bool(p, g):
            continue
        gate[i] = True
        area_frac = sample_uniform(slo, shi, g)
        aspect = sample_uniform(arlo, arhi, g)
        eh = max(1, int(round(math.sqrt(area_frac * H * W * aspect))))
        ew = max(1, int(round(math.sqrt(area_frac * H * W / aspect))))
        eh = min(eh, H); ew = min(ew, W)
        cy = int(sample_uniform(0, H - eh, g))
        cx = int(sample_uniform(0, W - ew, g))
        region_mask[i, 0, cy:cy + eh, cx:cx + ew] = 1.0
        if fill_mode == "normal":
            fill_tensor[i, :, cy:cy + eh, cx:cx + ew] = (
                torch.empty(C, eh, ew).normal_(0.5, 0.2, generator=g).clamp(0, 1))
        elif fill_mode == "uniform":
            fill_tensor[i, :, cy:cy + eh, cx:cx + ew] = (
                torch.empty(C, eh, ew).uniform_(0.0, 1.0, generator=g))
        elif fill_mode == "constant":
            fill_tensor[i, :, cy:cy + eh, cx:cx + ew] = fill_value
        else:
            raise ValueError(
                f"random_erasing fill_mode must be normal/uniform/constant; "
                f"got {fill_mode!r}")
    region_d = region_mask.to(img.device).expand_as(img) > 0.5
    fill_d = fill_tensor.to(img.device)
    erased = torch.where(region_d, fill_d, img)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.where(gate_d.expand_as(img), erased, img)
    return out, mask


def grid_mask(img, mask, spec, seed_base, epoch, step):
    """GridMask (Chen 2020): drop a regular grid of square regions across
    the whole image. Encourages the model to use distributed features.

    spec = {"p": prob, "ratio": float in (0, 1) (drop fraction per cell),
            "d_range": (lo, hi)  # grid cell size in px (per item sample),
            "rotation_deg": float (max rotation of the grid),
            "fill_value": float}
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    ratio = float(spec.get("ratio", 0.5))
    if not (0.0 < ratio < 1.0):
        raise ValueError(f"grid_mask ratio must be in (0, 1); got {ratio}")
    dlo, dhi = spec.get("d_range", (max(8, H // 16), max(16, H // 4)))
    rot_max = float(spec.get("rotation_deg", 45.0))
    fill_value = float(spec.get("fill_value", 0.0))

    gate = torch.zeros(B, dtype=torch.bool)
    per_item_grid = torch.zeros(B, 1, H, W, dtype=img.dtype)
    yy, xx = _xy_coords(H, W, img.dtype)   # CPU coords (cached)
    yy_c = yy - (H - 1) / 2.0
    xx_c = xx - (W - 1) / 2.0
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "grid_mask"))
        if not sample_bool(p, g):
            continue
        gate[i] = True
        d = max(2, int(round(sample_uniform(dlo, dhi, g))))
        l = int(round(d * ratio))   # drop-region side length within cell
        # phase offset within first cell
        off_y = int(sample_uniform(0, d, g)) % d
        off_x = int(sample_uniform(0, d, g)) % d
        # rotation
        theta = math.radians(sample_uniform(-rot_max, rot_max, g))
        cos_t = math.cos(theta); sin_t = math.sin(theta)
        # rotate centred coords
        y_rot =  cos_t * yy_c + sin_t * xx_c
        x_rot = -sin_t * yy_c + cos_t * xx_c
        y_mod = (y_rot.long() + off_y) % d
        x_mod = (x_rot.long() + off_x) % d
        cell_mask = (y_mod < l) & (x_mod < l)
        per_item_grid[i, 0] = cell_mask.to(img.dtype)
    grid_d = per_item_grid.to(img.device).expand_as(img) > 0.5
    out = torch.where(grid_d, torch.full_like(img, fill_value), img)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.where(gate_d.expand_as(img), out, img)
    return out, mask


def _cutmix_perm(B: int, seed_base: int, epoch: int, step: int):
    """Shared CPU-side batch-permutation for cutmix / mixup. Single seed
    (per-call, not per-item) keeps the partner mapping consistent and
    deterministic across CPU/GPU."""
    g = cpu_generator(per_item_seed(seed_base, epoch, step, 0, "cutmix_perm"))
    return torch.randperm(B, generator=g)


def cutmix(img, mask, spec, seed_base, epoch, step):
    """CutMix (Yun 2019): cut a rectangular region from partner image B and
    paste into image A. Mixing fraction λ sampled from Beta(α, α).

    Partner is `perm[i]` for sample i, where `perm` is a shared per-call
    randperm of the batch. Recover (λ, partner_idx) for label mixing via
    `paraug.mix_info("cutmix", seed_base, epoch, step, B)`.

    spec = {"p": prob, "alpha": float (Beta(α, α))}

    Note: classification training that uses cutmix needs to mix labels by λ
    too. paraug doesn't track labels — see `mix_info` helper.
    """
    B, C, H, W = img.shape
    p = float(spec.get("p", 1.0))
    alpha = float(spec.get("alpha", 1.0))
    if alpha <= 0.0:
        raise ValueError(f"cutmix alpha must be > 0; got {alpha}")

    gate = torch.zeros(B, dtype=torch.bool)
    region_mask = torch.zeros(B, 1, H, W, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "cutmix"))
        if not sample_bool(p, g):
            continue
        gate[i] = True
        # λ ~ Beta(α, α) via two independent Gammas
        ga = torch.empty(1).normal_(0, 1, generator=g)  # placeholder, replaced below
        # Use the gamma trick: X = Gamma(α, 1); Beta = X1 / (X1 + X2).
        # torch.distributions are not generator-aware, so sample via inverse-CDF
        # of two uniforms then map. For α=1 (default), Beta(1,1) = Uniform(0,1).
        if abs(alpha - 1.0) < 1e-8:
            lam = float(torch.empty(1).uniform_(0, 1, generator=g).item())
        else:
            u1 = float(torch.empty(1).uniform_(0, 1, generator=g).item())
            u2 = float(torch.empty(1).uniform_(0, 1, generator=g).item())
            x1 = u1 ** (1.0 / alpha)
            x2 = u2 ** (1.0 / alpha)
            lam = x1 / (x1 + x2 + 1e-12)
        # Bounding box of fraction (1 - λ) of the area
        cut_frac = 1.0 - lam
        cut_h = max(1, int(round(H * math.sqrt(cut_frac))))
        cut_w = max(1, int(round(W * math.sqrt(cut_frac))))
        cy = int(sample_uniform(0, max(1, H - cut_h), g))
        cx = int(sample_uniform(0, max(1, W - cut_w), g))
        region_mask[i, 0, cy:cy + cut_h, cx:cx + cut_w] = 1.0

    perm = _cutmix_perm(B, seed_base, epoch, step).to(img.device)
    region_d = region_mask.to(img.device).expand_as(img) > 0.5
    partner = img[perm]
    cutmixed = torch.where(region_d, partner, img)
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.where(gate_d.expand_as(img), cutmixed, img)
    return out, mask


def mixup(img, mask, spec, seed_base, epoch, step):
    """MixUp (Zhang 2017): linear interpolation of image A and partner B.
    `out[i] = λ·img[i] + (1-λ)·img[perm[i]]`, λ ~ Beta(α, α).

    Recover (λ, partner_idx) for label mixing via
    `paraug.mix_info("mixup", seed_base, epoch, step, B)`.

    spec = {"p": prob, "alpha": float (Beta(α, α))}
    """
    B = img.shape[0]
    p = float(spec.get("p", 1.0))
    alpha = float(spec.get("alpha", 0.2))
    if alpha <= 0.0:
        raise ValueError(f"mixup alpha must be > 0; got {alpha}")

    gate = torch.zeros(B, dtype=torch.bool)
    lams = torch.ones(B, dtype=img.dtype)
    for i in range(B):
        g = cpu_generator(per_item_seed(seed_base, epoch, step, i, "mixup"))
        if not sample_bool(p, g):
            continue
        gate[i] = True
        if abs(alpha - 1.0) < 1e-8:
            lam = float(torch.empty(1).uniform_(0, 1, generator=g).item())
        else:
            u1 = float(torch.empty(1).uniform_(0, 1, generator=g).item())
            u2 = float(torch.empty(1).uniform_(0, 1, generator=g).item())
            x1 = u1 ** (1.0 / alpha)
            x2 = u2 ** (1.0 / alpha)
            lam = x1 / (x1 + x2 + 1e-12)
        # Clip away from 0 / 1 — pure identity gives no aug signal.
        lams[i] = max(0.01, min(0.99, lam))

    perm = _cutmix_perm(B, seed_base, epoch, step).to(img.device)
    lams_d = lams.to(img.device).view(B, 1, 1, 1)
    partner = img[perm]
    mixed = lams_d * img + (1.0 - lams_d) * partner
    gate_d = gate.to(img.device).view(B, 1, 1, 1)
    out = torch.where(gate_d.expand_as(img), mixed, img)
    return out, mask


PHOTOMETRIC_PRIMITIVES = {
    "gamma": gamma,
    "gaussian_noise": gaussian_noise,
    "salt_pepper_noise": salt_pepper_noise,
    "color_jitter": color_jitter,
    "random_grayscale": random_grayscale,
    "cutout": cutout,
    "lighting": lighting,
    "vignette": vignette,
    "salt_patches": salt_patches,
    "watermark": watermark,
    "random_text_overlay": random_text_overlay,
    "hue_shift": hue_shift,
    "gaussian_blur": gaussian_blur,
    "motion_blur": motion_blur,
    "sharpness": sharpness,
    "local_contrast": local_contrast,
    "jpeg_approx": jpeg_approx,
    "stains": stains,
    "creases": creases,
    "specular_highlight": specular_highlight,
    "specular_streaks": specular_streaks,
    "clahe": clahe,
    "paper_texture_overlay": paper_texture_overlay,
    "background_compose": background_compose,
    # v0.5.0 OOD-realism additions
    "spatial_color_cast": spatial_color_cast,
    "paper_glare": paper_glare,
    "white_balance_shift": white_balance_shift,
    "defocus_blur": defocus_blur,
    # v0.7.0 modern aug primitives
    "random_erasing": random_erasing,
    "grid_mask": grid_mask,
    "cutmix": cutmix,
    "mixup": mixup,
}


def list_primitives() -> list:
    """Return sorted list of photometric primitive names available in this build.
    Order is deterministic so callers building op pools see the same indexing
    across machines and runs."""
    return sorted(PHOTOMETRIC_PRIMITIVES.keys())
