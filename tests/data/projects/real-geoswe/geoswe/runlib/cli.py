"""runlib.cli: the shared command line of the coastal surge and rain runners.

One parser serves every case runner, so the options, the defaults and the help text do not
drift between events; a runner that needs its own options passes ``extra=`` to
:func:`build_parser` and appends them instead of forking the shared core.
``benchmark/pinellas_3m/run_pinellas_mpi.py`` shows the whole sequence a runner performs:
parse the arguments, pin one GPU per MPI rank, then call :func:`geoswe.runlib.driver.main`.
"""
from __future__ import annotations
import argparse


def build_parser(extra=None):
    """Build the shared argument parser for the coastal surge+rain runners.

    ``extra`` is an optional callable that receives the parser and adds
    runner-specific options before it is returned.
    """
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--bc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--t-end-h", type=float, default=12.0)
    ap.add_argument("--cfl", type=float, default=0.5)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--stage-init", type=float, default=None,
                    help="Override initial stage; default reads from case[west_stage_m][0]")
    ap.add_argument("--no-intertidal-dry", action="store_true",
                    help="Keep intertidal cells wet at stage_init (default: force dry)")
    ap.add_argument("--sponge-w", type=int, default=75,
                    help="Open-boundary sponge width in CELLS at the global east/north "
                         "edges (must not exceed the local subdomain; validated at setup)")
    ap.add_argument("--nhd", default=None,
                    help="Path to nhd_creek_mask_*.npz (for NHD burn-in)")
    ap.add_argument("--channel-bed-npz", default=None,
                    help="Path to channel_bed_1m_*.npz (per-cell 1m-DEM channel bottom override)")
    ap.add_argument("--channel-width-npz", default=None,
                    help="Path to channel_width_*.npz with sigma_storage field "
                         "(enables sub-grid channel storage)")
    ap.add_argument("--drain-tau-npz", default=None,
                    help="Path to drain_tau_*.npz with per-cell tau_h field "
                         "(linear-reservoir drainage)")
    ap.add_argument("--drain-land-bed-thresh", type=float, default=0.3,
                    help="Drainage only applies where bed > this threshold (m)")
    ap.add_argument("--cross-sections-npz", default=None,
                    help="Path to cross_sections_*.npz (per-gauge cs sampling)")
    ap.add_argument("--gauge-every-s", type=float, default=360.0,
                    help="Cross-section sampling interval (s)")
    ap.add_argument("--frame-every-s", type=float, default=0.0,
                    help="Write depth-frame tiffs every N seconds (0 = disable)")
    ap.add_argument("--snapshot-every-s", type=float, default=0.0,
                    help="Write (h, hu, hv) on the cells of --snapshot-mask every N seconds into one "
                         ".npy array of shape (1, times, cells, 3) (0 = disable; single rank only)")
    ap.add_argument("--snapshot-mask", default=None,
                    help="Boolean cell mask with the grid's shape: a .npy file, or an .npz with "
                         "--snapshot-mask-key")
    ap.add_argument("--snapshot-mask-key", default="inside_mask")
    ap.add_argument("--snapshot-file", default=None, help="default: <out>/snapshots.npy")
    ap.add_argument("--snapshot-dtype", default="float16", choices=["float16", "float32"])
    ap.add_argument("--frame-parallel", action="store_true",
                    help="Parallel frame I/O: each rank writes its OWN subdomain to a "
                         "separate .npz (no gather to rank 0) + a one-time manifest.json "
                         "that records each rank's placement. Essential at scales "
                         "where rank 0 can't hold the global field (e.g. Florida).")
    ap.add_argument("--rainfall-spatial-npz", default=None,
                    help="Path to rainfall_spatial_*.npz (MRMS-derived spatial rainfall)")
    ap.add_argument("--ga-ks-scale", type=float, default=1.0,
                     help="Multiply Green-Ampt K_s by this factor on cells with K_s>0. "
                          "Use <1.0 to simulate saturated antecedent soils (less infiltration). "
                          "Doesn't affect cells with K_s=0 (wetlands).")
    ap.add_argument("--ga-dth-scale", type=float, default=1.0,
                     help="Multiply Green-Ampt delta-theta (moisture deficit) by this factor. "
                          "Use <1.0 to simulate saturated antecedent soils.")
    ap.add_argument("--drain-land-mmph", type=float, default=0.0,
                    help="Override GA K_s on land cells (mm/h); 0 = use NLCD bands")
    ap.add_argument("--burn-target-m", type=float, default=-0.5)
    ap.add_argument("--burn-max-drop-m", type=float, default=2.0)
    ap.add_argument("--burn-elev-cutoff-m", type=float, default=5.0)
    ap.add_argument("--dims", default=None,
                    help="MPI dims as 'PxxPy', e.g. '2x1' for x-axis split. "
                         "Default: auto (MPI.Compute_dims).")
    ap.add_argument("--smoke", action="store_true",
                    help="Override t-end-h to 1h smoke test")
    ap.add_argument("--stage-clamp-npz", default=None,
                     help="Optional NPZ with arrays 'rows', 'cols', 'h_max' to clamp h<=h_max at specific cells (global indices). Mimics controlled spillway / stage BC at points like Lake Tarpon S-551.")
    ap.add_argument("--n-steps", type=int, default=0,
                    help="If >0, run exactly N steps with fixed dt=0.3 (debug). The CFL is not "
                         "consulted, so a grid that cannot take 0.3 s diverges; the final rasters "
                         "are checked for finiteness before they are written.")
    ap.add_argument("--dt-min", type=float, default=0.0,
                    help="Stop the run when the CFL time step falls below this (s); "
                         "0 (default) = no floor, as in the calibrated runs. Heavy rain on the "
                         "narrowest sub-grid storage channels (sigma ~ 0.2) can collapse dt and "
                         "leave the job grinding out its whole allocation for a few simulated "
                         "minutes; with a floor it stops and reports the step, the time and the dt. "
                         "Raise --h-min-cfl instead to keep near-dry films out of the CFL. Both "
                         "step loops honour it: the dense loop checks it, and --compressed takes "
                         "it in place of its own GEOSWE_DT_MIN.")
    ap.add_argument("--compressed", action="store_true",
                    help="Opt-in: run the flat compressed-mesh step loop (geoswe.compressed_solver) "
                         "instead of the dense loop. Default OFF -> unchanged dense path. One "
                         "scheme only (first-order SRM-HLLC + forward Euler), and --h-min-cfl "
                         "has no effect on it (SWE_HMIN_CFL does).")
    ap.add_argument("--cache-save", default=None,
                    help="With --compressed: also save the flat structures to this dir, for a later "
                         "replay that builds no dense domain. A runner calls "
                         "geoswe.runlib.replay.main with the parser from its build_cached_parser, "
                         "as benchmark/pinellas_3m/run_cache_3m.py does; this parser has no "
                         "--cache, because the driver always builds the dense domain.")
    ap.add_argument("--balanced-partition", action="store_true",
                    help="With --compressed (MPI): active-cell-balanced 1xN y-split (florida-style "
                         "cumulative-active boundaries) instead of equal grid blocks. Balances MPI load "
                         "(equal 2x2 -> 1.26 max/mean; active-balanced 1xN -> ~1.0).")
    ap.add_argument("--h-min", type=float, default=None,
                    help="Wet/dry + CFL wet-threshold floor (m). Default None -> the validated "
                         "1e-6 (fp32) / 1e-10 (fp64), i.e. byte-identical to the calibrated runs. "
                         "Pass 1e-3 to use a 1 mm floor (excludes near-dry "
                         "cells from the CFL -> ~2x larger dt). Calibrated composites must be "
                         "re-verified when this is set.")
    ap.add_argument("--h-min-cfl", type=float, default=None,
                    help="Separate wet floor for the CFL/dt reduction ONLY (m), decoupled from the "
                         "physics --h-min. Default None -> 0.0 -> use --h-min for the CFL too "
                         "(byte-identical). Set e.g. 1e-3 to drop near-dry films from dt while "
                         "physics keeps the small --h-min (e.g. 1e-6). Tests whether dt can be "
                         "cheaper without breaking the burned-channel stage calibration. Dense "
                         "path only: on --compressed the floor comes from SWE_HMIN_CFL.")
    ap.add_argument("--storage-courant", type=float, default=0.0,
                    help="Storage curve for --channel-width-npz: the 1/sigma storage scaling holds "
                         "up to the depth h* where still water reaches this storage-scaled Courant "
                         "number (e.g. 0.9); above h* the whole cell stores water. Keeps deep "
                         "narrow-channel cells stable without a smaller time step. 0 (default) "
                         "= plain 1/sigma, as in the calibrated runs.")
    ap.add_argument("--storage-dt-ref", type=float, default=0.0,
                    help="Time step (s) that sets h* for --storage-courant; 0 = the first step's dt.")
    if extra:
        extra(ap)
    return ap


def parse(argv=None, extra=None):
    """Parse ``argv`` (default ``sys.argv``) with :func:`build_parser`."""
    return build_parser(extra=extra).parse_args(argv)
