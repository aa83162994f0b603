"""runlib.case: load and condition a prepared coastal case, before any MPI slicing.

:func:`load_case` reads the two npz files a case runner is handed, the case grid and the
boundary conditions, and returns the global arrays the driver then slices per rank: the
conditioned bed (no-data fill, clip to the coastal range, shoreline smoothing, optional
creek burn-in with a 1 m-DEM channel-bed override), the Manning field, the active mask and
the ring-boundary arrays. Pure NumPy, no GPU and no MPI, so a case can be loaded and
inspected on its own. The tide-gauge series, the per-cell forcings and the MPI slicing live
in :mod:`geoswe.runlib.driver`; ``benchmark/pinellas_3m/run_pinellas_mpi.py`` is a runner
that uses both.
"""
from __future__ import annotations
import types
import numpy as np
from pathlib import Path


def load_case(case_path, bc_path, *, dtype="float32", nhd_path=None, channel_bed_npz=None,
              burn_target_m=-0.5, burn_max_drop_m=2.0, burn_elev_cutoff_m=5.0,
              proc_dtype="float64", say=None):
    """Load + condition the global case grid + ring-BC arrays. Pure NumPy (no GPU/MPI).

    ``proc_dtype`` is the precision of the conditioning itself (clip, smooth, burn). Use
    "float64", the default, to reproduce the published Pinellas runs bit for bit. "float32" is
    the lean production path: differences of under a centimetre and no float64 transient, which
    is what matters at CONUS scale (about 58 GB against 116 GB for the global bed).
    """
    # scipy is an optional extra; import it here (not at module level)
    # so `import geoswe.runlib` works without it.
    try:
        from scipy.ndimage import distance_transform_edt, gaussian_filter
    except ImportError as e:
        raise ImportError(
            "geoswe.runlib.case.load_case requires scipy (the forcings extra): "
            "pip install scipy"
        ) from e

    if say is None:
        say = lambda *a, **k: None

    case = np.load(case_path, allow_pickle=True)
    dx = float(case["dx"])
    x0 = float(case["x0"]); y0 = float(case["y0"])
    crs_wkt = str(case["crs_wkt"])

    # --- Process bed in proc_dtype (f64 = bit-identical to runner; f32 = lean) then cast ---
    bed = case["bed"].astype(proc_dtype)
    nd_mask = (bed == -9999.0) | ~np.isfinite(bed)
    if nd_mask.any():
        _, (ii, jj) = distance_transform_edt(nd_mask, return_indices=True)
        bed = bed[ii, jj]
    bed = np.clip(bed, -10.0, 50.0)
    shoreline_band = (bed > -2.0) & (bed < 2.0)
    bed = np.where(shoreline_band, gaussian_filter(bed, sigma=2.0), bed)
    say(f"  Shoreline-band bed smoothing: {int(shoreline_band.sum()):,} cells")

    # --- NHD creek burn-in ---
    nhd_glob = None
    if nhd_path is not None:
        nhd_path = Path(nhd_path)
        if nhd_path.exists():
            nhd = np.load(nhd_path)
            creek_mask = nhd["creek_mask"]
            if creek_mask.shape != bed.shape:
                say("  ! NHD creek mask shape mismatch; skipping burn-in")
            else:
                nhd_glob = creek_mask.astype(np.bool_)
                bed_before = bed.copy()
                eligible = creek_mask & (bed_before < burn_elev_cutoff_m)
                target = np.maximum(bed_before - burn_max_drop_m, burn_target_m)
                bed = np.where(eligible, np.minimum(bed_before, target), bed_before)

                # 1m DEM channel-bed override
                n_from_1m = 0
                if channel_bed_npz is not None:
                    cb_path = Path(channel_bed_npz)
                    if cb_path.exists():
                        cb = np.load(cb_path)
                        if cb["channel_bed_min"].shape == bed.shape:
                            has_cover = cb["has_1m_cover"]
                            ch_bed = cb["channel_bed_min"]
                            use_mask = creek_mask & has_cover & np.isfinite(ch_bed)
                            bed_after_1m = np.minimum(bed, ch_bed.astype(bed.dtype))
                            bed = np.where(use_mask, bed_after_1m, bed)
                            n_from_1m = int(use_mask.sum())
                carved = (bed < bed_before).sum()
                say(f"  NHD burn-in: {carved:,}/{int(creek_mask.sum()):,} cells carved"
                    f"{', 1m-DEM override: '+str(n_from_1m) if n_from_1m else ''}")

    # --- Manning ---
    manning = case["manning"].astype(proc_dtype)
    manning[(manning <= 0.001) | ~np.isfinite(manning)] = 0.035

    bed_glob = bed.astype(dtype)
    manning_glob = manning.astype(dtype)

    bc = np.load(bc_path, allow_pickle=True)
    inside_glob = bc["inside_mask"].astype(np.bool_)
    ring_i = bc["ring_i"].astype(np.int64)
    ring_j = bc["ring_j"].astype(np.int64)
    ring_bed = bc["ring_bed"].astype(dtype)
    w_g = bc["w_g"].astype("float32")
    gauge_names = [str(x) for x in bc["gauge_names"]]
    gauge_pos_utm = bc["gauge_pos_utm"]  # (N_gauges, 2)
    # The ring kernel strides w_g by len(gauge_names) and nothing checked the two agree.
    # Three columns against four names reads 4*n_ring floats out of a 3*n_ring buffer --
    # adjacent pool bytes, driving the tide with garbage -- and five columns silently
    # applies the wrong weights. The same unchecked count is baked into the kernel source,
    # reaches the compressed path and is persisted into the checkpoint metadata, so one bad
    # bc file corrupts the dense run, the compressed run and every replay from it.
    if w_g.ndim == 1:                       # a single gauge may be written as a flat column
        w_g = w_g.reshape(-1, 1)
    if w_g.ndim != 2 or w_g.shape[1] != len(gauge_names):
        raise ValueError(
            f"bc file {bc_path}: w_g has shape {tuple(w_g.shape)} but there are "
            f"{len(gauge_names)} gauges {gauge_names}; it must be "
            f"(n_ring, {len(gauge_names)}), one interpolation weight per ring cell per gauge")
    for _name, _arr in (("ring_j", ring_j), ("ring_bed", ring_bed), ("w_g", w_g)):
        if len(_arr) != len(ring_i):
            raise ValueError(f"bc file {bc_path}: {len(ring_i)} ring_i but {len(_arr)} {_name}; "
                             f"the ring arrays must all have one entry per ring cell")
    if len(gauge_pos_utm) != len(gauge_names):
        raise ValueError(f"bc file {bc_path}: {len(gauge_names)} gauge names but "
                         f"{len(gauge_pos_utm)} gauge positions")

    nx_glob, ny_glob = bed_glob.shape

    return types.SimpleNamespace(
        dx=dx, x0=x0, y0=y0, crs_wkt=crs_wkt,
        # f64 pre-cast bed/manning are used downstream (IC, drain-tau land mask, GA bands);
        # bed_glob/manning_glob are the cast (dtype) versions (GA drain-land override, solver).
        bed=bed, manning=manning,
        bed_glob=bed_glob, manning_glob=manning_glob, inside_glob=inside_glob,
        nhd_glob=nhd_glob,
        ring_i=ring_i, ring_j=ring_j, ring_bed=ring_bed, w_g=w_g,
        gauge_names=gauge_names, gauge_pos_utm=gauge_pos_utm,
        nx_glob=nx_glob, ny_glob=ny_glob,
        # raw case handle for the few downstream `case[...]` reads (west_stage_m, bed.shape, rain_*)
        case=case,
    )
