"""Fat post-processing + body-composition quantification for an L3 muscle seg.

Each muscle is eroded to an interior "core" (the boundary rim reads as fat by
partial-volume averaging and is handled separately), and voxels are classified
by HU into four compartments:

    comp 1  muscle            core, HU >= LAMA_HI (default 30)
    comp 2  fat-PV muscle     core, FAT_HU <= HU < LAMA_HI  (low-attenuation)
    comp 3  intramuscular fat core, HU < FAT_HU (default -30)
    comp 4  outer-edge PV fat the eroded rim

Total muscle = mask minus intramuscular fat (comp 3) = comps 1+2+4.
Left/right split at the patient midline (x-centroid; RAI -> +x is patient Right).

Metrics per muscle x side (mm^2): muscle_csa, fat_pv_muscle_csa,
intramuscular_fat_csa, outer_edge_pv_fat_csa — each {mean, median, std,
n_slices} over the same cleaned slices (split at interior area drops, keep the
longest piece, then edge-outlier trimming; see _select_slices), plus slice_range.
L and R of a muscle share one z-range: the overlap of their cleaned ranges.
"""
from __future__ import annotations

import numpy as np
import SimpleITK as sitk
from scipy import ndimage

from . import config

COMPARTMENTS = ["muscle_csa", "fat_pv_muscle_csa",
                "intramuscular_fat_csa", "outer_edge_pv_fat_csa"]


def _trim_edges(a, k=3.0, rel_floor=0.10):
    """Inclusive (i, j) range of `a` left after dropping outlier runs at either end."""
    n = a.size
    if n <= 4:
        return 0, n - 1
    lo, hi = n // 5, n - n // 5
    center = a[lo:hi] if hi > lo else a
    med = np.median(center)
    mad = 1.4826 * np.median(np.abs(center - med))
    scale = max(mad, rel_floor * med, 1e-6)
    out = lambda v: abs(v - med) > k * scale
    i = 0
    while i < n and out(a[i]):
        i += 1
    j = n - 1
    while j > i and out(a[j]):
        j -= 1
    return (i, j) if i <= j else (0, n - 1)


def _select_slices(profile, split_drop=None, shoulder=0.75):
    """Slice indices of `profile` (per-slice CSA) to average over.

    Start from the non-empty z-range. With split_drop, any interior slice whose
    area is below split_drop x median (e.g. a muscle that disappears at a disc
    level) is a boundary; the boundary is widened over neighbouring transition
    slices still below shoulder x median, the range is split there and the
    longest piece is kept (ties -> larger total area). The kept range is then
    edge-trimmed."""
    nz = np.where(profile > 0)[0]
    if nz.size == 0:
        return np.array([], int)
    idx = np.arange(nz.min(), nz.max() + 1)
    if split_drop:
        a = profile[idx]
        med = np.median(profile[nz])
        bad = a < split_drop * med
        low = a < shoulder * med
        n = a.size
        for lo, hi in _runs(bad):
            if lo == 0 or hi == n:          # drops at the ends are edge-trimming's job
                continue
            while lo > 0 and low[lo - 1]:
                lo -= 1
            while hi < n and low[hi]:
                hi += 1
            bad[lo:hi] = True
        pieces = [idx[lo:hi] for lo, hi in _runs(~bad)]
        if pieces:
            idx = max(pieces, key=lambda r: (r.size, profile[r].sum()))
    i, j = _trim_edges(profile[idx])
    return idx[i:j + 1]


def _runs(mask):
    """[start, stop) of each run of True in a 1-D bool array."""
    d = np.diff(np.r_[0, mask.astype(np.int8), 0])
    return list(zip(np.where(d == 1)[0], np.where(d == -1)[0]))


def _stats(areas):
    if len(areas) == 0:
        return {"mean": 0.0, "median": 0.0, "std": 0.0, "n_slices": 0}
    a = np.asarray(areas, float)
    return {"mean": round(float(a.mean()), 2), "median": round(float(np.median(a)), 2),
            "std": round(float(a.std()), 2), "n_slices": int(a.size)}


def _gmm2_crossover(x, default=30.0, lo=-200.0, hi=250.0, iters=60):
    """Per-muscle muscle / low-attenuation-muscle split: 2-component 1-D GMM
    (pure-numpy EM) on this muscle's core HU; returns the crossover HU between
    the two modes. Adapts to each scan's muscle attenuation. Falls back to
    `default` when the data isn't clearly bimodal / too sparse."""
    x = x[(x >= lo) & (x <= hi)].astype(np.float64)
    if x.size < 500:
        return default, False
    m = np.median(x)
    mu = np.array([x[x < m].mean(), x[x >= m].mean()])
    var = np.array([max(x[x < m].var(), 1.0), max(x[x >= m].var(), 1.0)])
    w = np.array([0.5, 0.5])
    for _ in range(iters):
        p0 = w[0] * np.exp(-(x - mu[0]) ** 2 / (2 * var[0])) / np.sqrt(2 * np.pi * var[0])
        p1 = w[1] * np.exp(-(x - mu[1]) ** 2 / (2 * var[1])) / np.sqrt(2 * np.pi * var[1])
        s = p0 + p1 + 1e-12
        r0, r1 = p0 / s, p1 / s
        n0, n1 = r0.sum(), r1.sum()
        if n0 < 1 or n1 < 1:
            return default, False
        mu = np.array([(r0 * x).sum() / n0, (r1 * x).sum() / n1])
        var = np.array([max((r0 * (x - mu[0]) ** 2).sum() / n0, 1.0),
                        max((r1 * (x - mu[1]) ** 2).sum() / n1, 1.0)])
        w = np.array([n0 / x.size, n1 / x.size])
    lo_i, hi_i = (0, 1) if mu[0] <= mu[1] else (1, 0)
    if mu[hi_i] - mu[lo_i] < 5:
        return default, False
    xs = np.linspace(mu[lo_i], mu[hi_i], 1000)
    d_lo = w[lo_i] * np.exp(-(xs - mu[lo_i]) ** 2 / (2 * var[lo_i])) / np.sqrt(2 * np.pi * var[lo_i])
    d_hi = w[hi_i] * np.exp(-(xs - mu[hi_i]) ** 2 / (2 * var[hi_i])) / np.sqrt(2 * np.pi * var[hi_i])
    return float(xs[np.argmin(np.abs(d_lo - d_hi))]), True


def quantify(ct: sitk.Image, seg: sitk.Image, fat_hu=None, lama_hi=None, erode=None,
             split_drop=None):
    """(CT, muscle seg) -> (total_muscle_seg, composition_seg, metrics dict).

    composition_seg encodes muscle*10 + compartment (11..34).
    """
    fat_hu = config.FAT_HU if fat_hu is None else fat_hu
    if lama_hi is None:
        lama_hi = config.LAMA_HI          # may still be None -> adaptive per muscle
    erode = config.FAT_ERODE if erode is None else erode
    split_drop = config.SPLIT_DROP if split_drop is None else split_drop
    adaptive = lama_hi is None

    ct_a = sitk.GetArrayFromImage(ct).astype(np.float32)
    seg_a = sitk.GetArrayFromImage(seg)
    if ct_a.shape != seg_a.shape:
        raise ValueError(f"CT {ct_a.shape} and seg {seg_a.shape} grids differ")
    sx, sy, sz = seg.GetSpacing()
    px_area = sx * sy
    struct = np.zeros((3, 3, 3), bool); struct[1] = True

    fg = seg_a > 0
    midline = float(np.argwhere(fg)[:, 2].mean()) if fg.any() else ct_a.shape[2] / 2.0
    is_right = np.arange(ct_a.shape[2]) > midline

    total = seg_a.copy()
    comp = np.zeros_like(seg_a)
    metrics = {}
    thresholds = {}
    for lid, name in config.MUSCLE_LABELS.items():
        mask = seg_a == lid
        core = (ndimage.binary_erosion(mask, structure=struct, iterations=max(1, erode))
                if mask.any() else mask)
        rim = mask & ~core
        thr = _gmm2_crossover(ct_a[core])[0] if adaptive else lama_hi
        thresholds[name] = round(float(thr), 2)
        c3 = core & (ct_a < fat_hu)
        c2 = core & (ct_a >= fat_hu) & (ct_a < thr)
        c1 = core & (ct_a >= thr)
        c4 = rim
        total[c3] = 0
        comp[c1] = lid * 10 + 1; comp[c2] = lid * 10 + 2
        comp[c3] = lid * 10 + 3; comp[c4] = lid * 10 + 4
        total_muscle = mask & ~c3

        # each side picks its own clean slices; both sides are then averaged
        # over the overlap (the most restrictive shared z-range)
        sides = {}
        for side, side_sel in (("L", ~is_right), ("R", is_right)):
            sidevol = np.zeros_like(mask); sidevol[:, :, side_sel] = True
            prof = (total_muscle & sidevol).sum(axis=(1, 2)).astype(np.float64) * px_area
            sides[side] = (sidevol, prof, _select_slices(prof, split_drop))
        sel_l, sel_r = sides["L"][2], sides["R"][2]
        shared = None
        if sel_l.size and sel_r.size:
            z0, z1 = max(sel_l[0], sel_r[0]), min(sel_l[-1], sel_r[-1])
            if z0 <= z1:
                shared = np.arange(z0, z1 + 1)
            else:
                print(f"  warning: {name} L/R slice ranges don't overlap "
                      f"({sel_l[0]}-{sel_l[-1]} vs {sel_r[0]}-{sel_r[-1]}); "
                      "using each side's own range")

        metrics[name] = {}
        for side, (sidevol, prof, sel) in sides.items():
            if shared is not None:
                sel = shared
            cp = lambda cm: (cm & sidevol).sum(axis=(1, 2)).astype(np.float64)[sel] * px_area
            metrics[name][side] = {
                "muscle_csa": _stats(prof[sel]),
                "fat_pv_muscle_csa": _stats(cp(c2)),
                "intramuscular_fat_csa": _stats(cp(c3)),
                "outer_edge_pv_fat_csa": _stats(cp(c4)),
                "slice_range": [int(sel[0]), int(sel[-1])] if sel.size else None,
            }

    metrics["_thresholds_hu"] = {"fat": float(fat_hu),
                                 "muscle_low_atten_split": thresholds,
                                 "adaptive": bool(adaptive)}
    metrics["_slice_cleaning"] = {"split_drop": split_drop}
    out_seg = sitk.GetImageFromArray(total.astype(np.uint8)); out_seg.CopyInformation(seg)
    out_comp = sitk.GetImageFromArray(comp.astype(np.uint8)); out_comp.CopyInformation(seg)
    return out_seg, out_comp, metrics
