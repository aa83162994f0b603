"""Output formatting for evaluation results.

Provides flag_outliers for statistical outlier detection, format_baseline_report
for outlier-annotated baseline reports, and format_eval_report / format_eval_json
for multi-stage EvalRunner results.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from aquapose.evaluation.metrics import Tier1Result, Tier2Result

if TYPE_CHECKING:
    from aquapose.evaluation.runner import EvalRunnerResult


class _NumpySafeEncoder(json.JSONEncoder):
    """JSON encoder that converts numpy scalar types to Python builtins."""

    def default(self, obj: Any) -> Any:
        """Convert numpy scalars to native Python types.

        Args:
            obj: Object to serialize.

        Returns:
            Python-native equivalent or delegates to super.
        """
        if isinstance(obj, np.floating):
            return float(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        return super().default(obj)


def flag_outliers(values: dict[str, float], threshold_std: float = 2.0) -> set[str]:
    """Return keys whose values exceed mean + threshold_std * std.

    Args:
        values: Mapping of key to numeric value to analyse.
        threshold_std: Number of standard deviations above the mean to use as
            the outlier threshold. Defaults to 2.0.

    Returns:
        Set of keys identified as outliers. Returns an empty set when fewer
        than 2 values are provided or when the standard deviation is zero.
    """
    if len(values) < 2:
        return set()
    vals = list(values.values())
    mean = float(np.mean(vals))
    std = float(np.std(vals))
    if std == 0.0:
        return set()
    threshold = mean + threshold_std * std
    return {k for k, v in values.items() if v > threshold}


def format_baseline_report(
    tier1: Tier1Result,
    tier2: Tier2Result,
    fixture_name: str,
    frames_evaluated: int,
    frames_available: int,
) -> str:
    """Format evaluation results as an outlier-annotated baseline report.

    Produces a reprojection error section and leave-one-out stability section,
    marking entries that exceed 2 standard deviations from the mean with an
    asterisk (``*``).

    Outlier detection is applied to:

    * Tier 1 per-camera mean_px values.
    * Tier 1 per-fish mean_px values.
    * Tier 2 per-fish per-dropout-camera displacement values (within each fish).

    A legend line ``* = outlier (>2 std from mean)`` is appended at the bottom.

    Args:
        tier1: Tier 1 aggregated reprojection error metrics.
        tier2: Tier 2 aggregated leave-one-out displacement metrics.
        fixture_name: Name of the fixture file (for display).
        frames_evaluated: Number of frames evaluated.
        frames_available: Total frames available in the fixture.

    Returns:
        Multi-line ASCII string with outlier markers, suitable for printing
        to stdout or saving as a text report.
    """
    lines: list[str] = []

    # ------------------------------------------------------------------
    # Header
    # ------------------------------------------------------------------
    lines.append("Baseline Evaluation Report")
    lines.append("==========================")
    lines.append(
        f"Fixture: {fixture_name}  |  Frames evaluated: {frames_evaluated} / {frames_available}"
    )
    if tier1.fish_available > 0:
        rate = tier1.fish_reconstructed / tier1.fish_available * 100
        lines.append(
            f"Reconstruction rate: {tier1.fish_reconstructed}/{tier1.fish_available} "
            f"fish-frames ({rate:.0f}%)"
        )
    lines.append("")

    # ------------------------------------------------------------------
    # Tier 1: Reprojection Error (with per-camera outlier flagging)
    # ------------------------------------------------------------------
    cam_outliers = flag_outliers(
        {cam: float(stats["mean_px"]) for cam, stats in tier1.per_camera.items()}
    )
    fish_outliers = flag_outliers(
        {str(fid): float(stats["mean_px"]) for fid, stats in tier1.per_fish.items()}
    )

    lines.append("Tier 1: Reprojection Error (pixels)")
    lines.append("-" * 50)
    lines.append(f"{'Camera':<16} {'Mean':>8} {'Max':>8}")
    lines.append(f"{'------':<16} {'----':>8} {'---':>8}")

    for cam_id, cam_stats in sorted(tier1.per_camera.items()):
        mean_px = cam_stats["mean_px"]
        max_px = cam_stats["max_px"]
        marker = " *" if cam_id in cam_outliers else ""
        lines.append(f"{cam_id:<16} {mean_px:>8.2f} {max_px:>8.2f}{marker}")

    lines.append(
        f"{'OVERALL':<16} {tier1.overall_mean_px:>8.2f} {tier1.overall_max_px:>8.2f}"
    )
    lines.append("")

    # ------------------------------------------------------------------
    # Per-fish breakdown
    # ------------------------------------------------------------------
    lines.append("Tier 1: Per-Fish Breakdown (pixels)")
    lines.append("-" * 50)
    lines.append(f"{'Fish':<8} {'Mean':>8} {'Max':>8}")
    lines.append(f"{'----':<8} {'----':>8} {'---':>8}")

    for fish_id in sorted(tier1.per_fish.keys()):
        stats = tier1.per_fish[fish_id]
        mean_px = stats["mean_px"]
        max_px = stats["max_px"]
        marker = " *" if str(fish_id) in fish_outliers else ""
        lines.append(f"{fish_id:<8} {mean_px:>8.2f} {max_px:>8.2f}{marker}")

    lines.append("")

    # ------------------------------------------------------------------
    # Tier 2: Leave-One-Out Stability (with per-fish outlier flagging)
    # ------------------------------------------------------------------
    lines.append("Tier 2: Leave-One-Out Stability")
    lines.append("-" * 50)
    lines.append(f"{'Fish':<8} {'Dropout Camera':<18} {'Max Disp (mm)':>14}")
    lines.append(f"{'----':<8} {'--------------':<18} {'-------------':>14}")

    for fish_id in sorted(tier2.per_fish_dropout.keys()):
        dropout_dict = tier2.per_fish_dropout[fish_id]
        # Compute outliers among non-None displacement values for this fish
        non_none: dict[str, float] = {
            cam: float(val) for cam, val in dropout_dict.items() if val is not None
        }
        tier2_outliers = flag_outliers(non_none)

        for cam_id in sorted(dropout_dict.keys()):
            displacement = dropout_dict[cam_id]
            if displacement is None:
                disp_str = "N/A"
                marker = ""
            else:
                disp_mm = float(displacement) * 1000.0
                disp_str = f"{disp_mm:.3f}"
                marker = " *" if cam_id in tier2_outliers else ""
            lines.append(f"{fish_id:<8} {cam_id:<18} {disp_str:>14}{marker}")

    lines.append("")
    lines.append("* = outlier (>2\u03c3 from mean)")
    lines.append("")

    return "\n".join(lines)


def format_eval_report(result: EvalRunnerResult) -> str:
    """Format an EvalRunnerResult as a multi-stage human-readable ASCII report.

    Produces a header block with run metadata followed by a summary section
    listing each present stage's primary metric, and then per-stage detail
    sections with full metric tables.

    Args:
        result: Aggregated evaluation result from EvalRunner.run().

    Returns:
        Multi-line ASCII string suitable for printing to stdout.
    """
    lines: list[str] = []
    _SEP = "=" * 50
    _DASH = "-" * 50
    _W_METRIC = 30
    _W_VALUE = 12

    # ------------------------------------------------------------------
    # Header block
    # ------------------------------------------------------------------
    lines.append("Evaluation Report")
    lines.append(_SEP)
    lines.append(
        f"Run: {result.run_id}  |  Frames: {result.frames_evaluated}/{result.frames_available}"
    )
    stages_sorted = sorted(result.stages_present)
    if stages_sorted:
        lines.append(f"Stages: {', '.join(stages_sorted)}")
    lines.append("")

    # ------------------------------------------------------------------
    # Summary: one line per present stage with primary metric
    # ------------------------------------------------------------------
    has_summary = False
    if result.detection is not None:
        d = result.detection
        lines.append(
            f"  Detection:       {d.total_detections} detections,"
            f" mean conf {d.mean_confidence:.3f}"
        )
        has_summary = True
    if result.tracking is not None:
        t = result.tracking
        lines.append(
            f"  Tracking:        {t.track_count} tracks,"
            f" {t.detection_coverage:.1%} coverage"
        )
        has_summary = True
    if result.association is not None:
        a = result.association
        lines.append(
            f"  Association:     yield {a.fish_yield_ratio:.1%},"
            f" singleton {a.singleton_rate:.1%}"
        )
        has_summary = True
    if result.midline is not None:
        m = result.midline
        lines.append(
            f"  Midline:         {m.total_midlines} midlines,"
            f" mean conf {m.mean_confidence:.3f}"
        )
        has_summary = True
    if result.reconstruction is not None:
        r = result.reconstruction
        lines.append(
            f"  Reconstruction:  mean reproj {r.mean_reprojection_error:.2f} px"
        )
        has_summary = True
    if result.fragmentation is not None:
        f = result.fragmentation
        lines.append(
            f"  Fragmentation:   {f.mean_continuity_ratio:.1%} continuity,"
            f" {f.total_gaps} gaps"
        )
        has_summary = True
    if result.stitching is not None:
        s = result.stitching
        lines.append(
            f"  Stitching:       {s.post_stitch.unique_fish_ids}/{s.post_stitch.expected_fish} IDs,"
            f" {s.continuity_improvement:+.1%} continuity"
        )
        has_summary = True
    if result.smoothing is not None:
        sm = result.smoothing
        lines.append(
            f"  Smoothing:       z-jitter {sm.mean_jitter_before:.2f}"
            f"\u2192{sm.mean_jitter_after:.2f} cm"
            f" ({sm.jitter_reduction:.1f}x reduction)"
        )
        has_summary = True

    if has_summary:
        lines.append("")

    # ------------------------------------------------------------------
    # Per-stage detail sections
    # ------------------------------------------------------------------
    def _row(metric: str, value: object) -> str:
        val_str = f"{value:.4f}" if isinstance(value, float) else str(value)
        return f"  {metric:<{_W_METRIC}} {val_str:>{_W_VALUE}}"

    def _header(name: str) -> list[str]:
        return [
            name,
            _DASH,
            f"  {'Metric':<{_W_METRIC}} {'Value':>{_W_VALUE}}",
        ]

    if result.detection is not None:
        lines.extend(_header("Detection"))
        d = result.detection
        lines.append(_row("total_detections", d.total_detections))
        lines.append(_row("mean_confidence", d.mean_confidence))
        lines.append(_row("std_confidence", d.std_confidence))
        lines.append(_row("mean_jitter", d.mean_jitter))
        lines.append("  per_camera_counts:")
        for cam_id, count in sorted(d.per_camera_counts.items()):
            lines.append(f"    {cam_id:<{_W_METRIC - 2}} {count:>{_W_VALUE}}")
        lines.append("")

    if result.tracking is not None:
        lines.extend(_header("Tracking"))
        t = result.tracking
        lines.append(_row("track_count", t.track_count))
        lines.append(_row("length_median", t.length_median))
        lines.append(_row("length_mean", t.length_mean))
        lines.append(_row("length_min", t.length_min))
        lines.append(_row("length_max", t.length_max))
        lines.append(_row("coast_frequency", t.coast_frequency))
        lines.append(_row("detection_coverage", t.detection_coverage))
        lines.append("")

    if result.association is not None:
        lines.extend(_header("Association"))
        a = result.association
        lines.append(_row("fish_yield_ratio", a.fish_yield_ratio))
        lines.append(_row("singleton_rate", a.singleton_rate))
        lines.append(_row("total_fish_observations", a.total_fish_observations))
        lines.append(_row("frames_evaluated", a.frames_evaluated))
        lines.append("  camera_distribution:")
        for n_cams, count in sorted(a.camera_distribution.items()):
            lines.append(f"    {n_cams} camera(s):{count:>{_W_VALUE}}")
        if a.p50_camera_count is not None:
            lines.append(_row("p50_camera_count", a.p50_camera_count))
        if a.p90_camera_count is not None:
            lines.append(_row("p90_camera_count", a.p90_camera_count))
        lines.append("")

    if result.midline is not None:
        lines.extend(_header("Midline"))
        m = result.midline
        lines.append(_row("total_midlines", m.total_midlines))
        lines.append(_row("mean_confidence", m.mean_confidence))
        lines.append(_row("std_confidence", m.std_confidence))
        if m.p10_confidence is not None:
            lines.append(_row("p10_confidence", m.p10_confidence))
        if m.p50_confidence is not None:
            lines.append(_row("p50_confidence", m.p50_confidence))
        if m.p90_confidence is not None:
            lines.append(_row("p90_confidence", m.p90_confidence))
        lines.append(_row("completeness", m.completeness))
        lines.append(_row("temporal_smoothness", m.temporal_smoothness))
        lines.append("")

    if result.reconstruction is not None:
        lines.extend(_header("Reconstruction"))
        r = result.reconstruction
        lines.append("")
        lines.append("  Tier 1: Reprojection Error")
        lines.append("  " + "-" * 30)
        lines.append(_row("mean_reprojection_error", r.mean_reprojection_error))
        lines.append(_row("max_reprojection_error", r.max_reprojection_error))
        if r.p50_reprojection_error is not None:
            lines.append(_row("p50_reprojection_error", r.p50_reprojection_error))
        if r.p90_reprojection_error is not None:
            lines.append(_row("p90_reprojection_error", r.p90_reprojection_error))
        if r.p95_reprojection_error is not None:
            lines.append(_row("p95_reprojection_error", r.p95_reprojection_error))
        if r.p99_reprojection_error is not None:
            lines.append(_row("p99_reprojection_error", r.p99_reprojection_error))
        lines.append(_row("fish_reconstructed", r.fish_reconstructed))
        lines.append(_row("fish_available", r.fish_available))
        lines.append(_row("inlier_ratio", r.inlier_ratio))
        lines.append(_row("low_confidence_flag_rate", r.low_confidence_flag_rate))
        lines.append("  per_camera_error:")
        for cam_id, stats in sorted(r.per_camera_error.items()):
            lines.append(
                f"    {cam_id:<{_W_METRIC - 2}}"
                f" mean={stats['mean_px']:.2f} max={stats['max_px']:.2f}"
            )
        if r.camera_visibility is not None:
            cv = r.camera_visibility
            lines.append("")
            lines.append("  Camera Visibility (cameras per fish)")
            lines.append("  " + "-" * 40)
            lines.append(
                _row(
                    "mean_cameras_per_fish",
                    float(cv["mean"]),
                )
            )
            lines.append(
                _row(
                    "median_cameras_per_fish",
                    float(cv["median"]),
                )
            )
            lines.append(
                _row(
                    "min_cameras_per_fish",
                    int(cv["min"]),
                )
            )
            lines.append(
                _row(
                    "max_cameras_per_fish",
                    int(cv["max"]),
                )
            )
            dist = cv.get("distribution")
            if isinstance(dist, dict):
                lines.append("  camera_visibility_distribution:")
                for n_cams, count in sorted(dist.items()):
                    lines.append(f"    {n_cams} camera(s):{count:>{_W_VALUE}}")
        if r.per_point_error is not None:
            lines.append("")
            lines.append("  Per-Keypoint Reprojection Error")
            lines.append("  " + "-" * 40)
            lines.append(f"    {'Point':>5}  {'Mean px':>8}  {'P90 px':>8}")
            lines.append(f"    {'-----':>5}  {'-------':>8}  {'------':>8}")
            for pt_idx in sorted(r.per_point_error.keys()):
                stats = r.per_point_error[pt_idx]
                lines.append(
                    f"    {pt_idx:>5}  {stats['mean_px']:>8.2f}  {stats['p90_px']:>8.2f}"
                )
        if r.curvature_stratified is not None:
            lines.append("")
            lines.append("  Curvature-Stratified Quality")
            lines.append("  " + "-" * 55)
            lines.append(
                f"    {'Quartile':>8}  {'Mean px':>8}  {'P90 px':>8}"
                f"  {'Count':>5}  {'Curvature Range':>16}"
            )
            lines.append(
                f"    {'--------':>8}  {'-------':>8}  {'------':>8}"
                f"  {'-----':>5}  {'---------------':>16}"
            )
            for q_key in ["Q1", "Q2", "Q3", "Q4"]:
                if q_key in r.curvature_stratified:
                    qs = r.curvature_stratified[q_key]
                    lines.append(
                        f"    {q_key:>8}  {qs['mean_error_px']:>8.2f}"
                        f"  {qs['p90_error_px']:>8.2f}"
                        f"  {qs['count']:>5}  {qs['curvature_range']:>16}"
                    )
        if r.tier2_stability is not None:
            lines.append("")
            lines.append("  Tier 2: Leave-One-Out Stability")
            lines.append("  " + "-" * 30)
            lines.append(_row("tier2_stability (m)", r.tier2_stability))
        lines.append("")

    if result.fragmentation is not None:
        lines.extend(_header("Track Fragmentation"))
        f = result.fragmentation
        lines.append("")
        lines.append("  Frame-Level Gaps")
        lines.append("  " + "-" * 30)
        lines.append(_row("total_gaps", f.total_gaps))
        lines.append(_row("mean_gap_duration", f.mean_gap_duration))
        lines.append(_row("max_gap_duration", f.max_gap_duration))
        lines.append(_row("mean_continuity_ratio", f.mean_continuity_ratio))
        lines.append("")
        lines.append("  Track-Level Statistics")
        lines.append("  " + "-" * 30)
        lines.append(_row("unique_fish_ids", f.unique_fish_ids))
        lines.append(_row("expected_fish", f.expected_fish))
        lines.append(_row("track_births", f.track_births))
        lines.append(_row("track_deaths", f.track_deaths))
        lines.append(_row("mean_track_lifespan", f.mean_track_lifespan))
        lines.append(_row("median_track_lifespan", f.median_track_lifespan))
        lines.append("")

    if result.stitching is not None:
        lines.extend(_header("Stitching Quality"))
        s = result.stitching
        lines.append(_row("source", s.source_file))
        lines.append("")
        lines.append("  Identity Consolidation")
        lines.append("  " + "-" * 30)
        lines.append(_row("pre_stitch_ids", s.pre_stitch.unique_fish_ids))
        lines.append(_row("post_stitch_ids", s.post_stitch.unique_fish_ids))
        lines.append(_row("expected_fish", s.post_stitch.expected_fish))
        lines.append(_row("id_ratio", s.id_ratio))
        lines.append(_row("id_reduction", s.id_reduction))
        lines.append("")
        lines.append("  Fragmentation Improvement")
        lines.append("  " + "-" * 30)
        lines.append(_row("pre_continuity", s.pre_stitch.mean_continuity_ratio))
        lines.append(_row("post_continuity", s.post_stitch.mean_continuity_ratio))
        lines.append(_row("continuity_improvement", s.continuity_improvement))
        lines.append(_row("pre_gaps", s.pre_stitch.total_gaps))
        lines.append(_row("post_gaps", s.post_stitch.total_gaps))
        lines.append(_row("gap_reduction", s.gap_reduction))
        lines.append(_row("birth_reduction", s.birth_reduction))
        lines.append(_row("death_reduction", s.death_reduction))
        lines.append("")
        lines.append("  Coverage")
        lines.append("  " + "-" * 30)
        lines.append(_row("full_coverage_ratio", s.full_coverage_ratio))
        lines.append("")
        lines.append("  Fish Count Distribution (stitched)")
        lines.append("  " + "-" * 40)
        total_frames = sum(s.fish_count_distribution.values())
        lines.append(f"    {'Fish Present':>12}  {'Frames':>8}  {'Fraction':>8}")
        lines.append(f"    {'------------':>12}  {'------':>8}  {'--------':>8}")
        for n_fish, count in sorted(s.fish_count_distribution.items()):
            frac = count / total_frames if total_frames > 0 else 0.0
            lines.append(f"    {n_fish:>12}  {count:>8}  {frac:>8.1%}")
        lines.append("")
        lines.append("  Per-Fish Summary (stitched)")
        lines.append("  " + "-" * 40)
        lines.append(
            f"    {'Fish ID':>7}  {'Span':>8}  {'Continuity':>10}  {'Gaps':>4}"
        )
        lines.append(
            f"    {'-------':>7}  {'------':>8}  {'----------':>10}  {'----':>4}"
        )
        for fid, summary in sorted(s.per_fish_summary.items()):
            lines.append(
                f"    {fid:>7}  {summary['span']:>8}  {summary['continuity']:>10.3f}"
                f"  {summary['gaps']:>4}"
            )
        lines.append("")

    if result.smoothing is not None:
        lines.extend(_header("Z-Smoothing Quality"))
        sm = result.smoothing
        lines.append(_row("source", sm.source_file))
        lines.append("")
        lines.append("  Z-Jitter (frame-to-frame centroid z)")
        lines.append("  " + "-" * 40)
        lines.append(_row("mean_jitter_before (cm)", sm.mean_jitter_before))
        lines.append(_row("mean_jitter_after (cm)", sm.mean_jitter_after))
        lines.append(_row("jitter_reduction", sm.jitter_reduction))
        lines.append(_row("fish_processed", sm.fish_processed))
        lines.append(_row("frames_processed", sm.frames_processed))
        if sm.per_fish_jitter:
            lines.append("")
            lines.append("  Per-Fish Z-Jitter (cm)")
            lines.append("  " + "-" * 40)
            lines.append(f"    {'Fish ID':>7}  {'Before':>8}  {'After':>8}")
            lines.append(f"    {'-------':>7}  {'------':>8}  {'-----':>8}")
            for fid, jitter in sorted(sm.per_fish_jitter.items()):
                lines.append(
                    f"    {fid:>7}  {jitter['before_cm']:>8.3f}  {jitter['after_cm']:>8.3f}"
                )
        if sm.reproj_before and sm.reproj_after:
            lines.append("")
            lines.append("  Reprojection Error Impact")
            lines.append("  " + "-" * 55)
            lines.append(
                f"    {'Statistic':<16} {'Before (px)':>11}  {'After (px)':>10}"
                f"  {'Delta (px)':>10}"
            )
            lines.append(
                f"    {'---------':<16} {'-----------':>11}  {'----------':>10}"
                f"  {'----------':>10}"
            )
            for label, key in [
                ("Mean", "mean"),
                ("Median (p50)", "p50"),
                ("p90", "p90"),
                ("p95", "p95"),
                ("p99", "p99"),
            ]:
                pre_val = sm.reproj_before.get(key, 0.0)
                post_val = sm.reproj_after.get(key, 0.0)
                delta = post_val - pre_val
                lines.append(
                    f"    {label:<16} {pre_val:>11.3f}  {post_val:>10.3f}"
                    f"  {delta:>+10.3f}"
                )
            lines.append(_row("fish_frames_evaluated", sm.reproj_n_fish_frames))
            lines.append(_row("total_residuals", sm.reproj_n_residuals))
        lines.append("")

    return "\n".join(lines)


def format_eval_json(result: EvalRunnerResult) -> str:
    """Format an EvalRunnerResult as a JSON string.

    Uses _NumpySafeEncoder to handle numpy scalar types that may be present
    in metric values. The JSON schema matches result.to_dict().

    Args:
        result: Aggregated evaluation result from EvalRunner.run().

    Returns:
        JSON string with run_id, stages_present, frames_evaluated,
        frames_available, and a "stages" dict mapping stage names to
        their metric dicts. Absent stages are omitted from "stages".
    """
    return json.dumps(result.to_dict(), cls=_NumpySafeEncoder, indent=2)
