"""Feature-level comparison of FreeSurfer-compatible morphometry methods.

The canonical interchange format is one row per subject and FreeSurfer target:

``method, case_id, feature, stats_name, region, measure, value``

Feature names follow ScaleSurfer's exact ``stats__region__measure`` convention.
Evaluation is always performed on the exact method/reference intersection and
reports coverage, so a thickness-only method cannot be mistaken for a complete
FreeSurfer replacement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from scalesurfer.stats.utils import flatten_stats_file

from .segmentation import ComparisonCase, REPO_ROOT


DEFAULT_OUTPUT_ROOT = REPO_ROOT / "data/surface_comparison"
DEFAULT_TENSOR_ROOT = REPO_ROOT / "data/tensors"
DEFAULT_OPENNEURO_STATS_ROOT = REPO_ROOT / "data/openneuro_stats_cache/files"
DEFAULT_FS8_STATS_ROOT = REPO_ROOT / "data/fs8_freesurfer_stats_cache"
DEFAULT_REFERENCE_STATS = ("aseg.stats", "lh.aparc.stats", "rh.aparc.stats")
CANONICAL_COLUMNS = (
    "method", "case_id", "feature", "stats_name", "region", "measure", "family", "value"
)


@dataclass(frozen=True)
class FeatureMethodSpec:
    name: str
    display_name: str
    prediction_kind: str
    directly_predicts_stats: bool
    code_and_weights: str
    source_url: str
    canonical_output: str
    inclusion: str


METHOD_SPECS: dict[str, FeatureMethodSpec] = {
    "scalesurfer": FeatureMethodSpec(
        "scalesurfer", "ScaleSurfer", "direct feature regression", True, "released",
        "https://github.com/voytekresearch/scalesurfer",
        "795 FreeSurfer-like targets in the released stats model",
        "primary executable comparator",
    ),
    "rebsamen2020": FeatureMethodSpec(
        "rebsamen2020", "Rebsamen et al. 2020", "direct feature regression", True,
        "not publicly released", "https://doi.org/10.3389/fneur.2020.00244",
        "165 subcortical volume, DKT thickness, and DKT curvature targets",
        "primary conceptual comparator; import author-supplied predictions",
    ),
    "herstonnet": FeatureMethodSpec(
        "herstonnet", "HerstonNet", "direct feature regression", True,
        "not publicly released", "https://arxiv.org/abs/2009.03303",
        "FreeSurfer volume, DKT thickness, and DKT mean-curvature targets",
        "primary conceptual comparator; import author-supplied predictions",
    ),
    "dl_direct": FeatureMethodSpec(
        "dl_direct", "DL+DiReCT", "segmentation + diffeomorphic thickness", False,
        "released", "https://github.com/SCAN-NRAD/DL-DiReCT",
        "DKT thickness means/std and segmentation volumes",
        "secondary executable comparator",
    ),
    "cortexmorph": FeatureMethodSpec(
        "cortexmorph", "CortexMorph", "learned diffeomorphic thickness", False,
        "released", "https://github.com/SCAN-NRAD/CortexMorph",
        "68 DKT thickness means plus hemispheric mean thickness",
        "secondary executable comparator; requires parcellation and GM/WM probabilities",
    ),
    "fastsurfer": FeatureMethodSpec(
        "fastsurfer", "FastSurfer", "segmentation + surface reconstruction", False,
        "released", "https://github.com/Deep-MI/FastSurfer",
        "FreeSurfer-compatible aseg and DKT surface stats files",
        "secondary full-pipeline comparator",
    ),
    "fastcsr": FeatureMethodSpec(
        "fastcsr", "FastCSR", "learned cortical surface reconstruction", False,
        "released", "https://github.com/pBFSLab/FastCSR",
        "surfaces; stats require a downstream parcellation/statistics stage",
        "surface comparator, not a direct stats predictor",
    ),
    "recon_all_clinical": FeatureMethodSpec(
        "recon_all_clinical", "recon-all-clinical", "clinical surface reconstruction", False,
        "released", "https://github.com/simnibs/brainnet",
        "FreeSurfer-compatible surface morphometry after its complete pipeline",
        "secondary clinical surface comparator",
    ),
}


def method_catalog() -> pd.DataFrame:
    """Return the screened method set and the important comparability boundary."""

    return pd.DataFrame([asdict(spec) for spec in METHOD_SPECS.values()])


def canonical_feature(stats_name: object, region: object, measure: object) -> str:
    parts = [str(stats_name)]
    if str(region) not in {"", "None", "nan"}:
        parts.append(str(region))
    if str(measure) not in {"", "None", "nan"}:
        parts.append(str(measure))
    return "__".join(part.replace(":", "_") for part in parts)


def feature_parts(feature: str) -> tuple[str, str, str]:
    parts = str(feature).split("__", 2)
    return (
        parts[0] if parts else "",
        parts[1] if len(parts) > 1 else "",
        parts[2] if len(parts) > 2 else "",
    )


def feature_family(stats_name: object, region: object, measure: object) -> str:
    measure_text = str(measure).lower()
    if measure_text in {"thickavg", "thickstd", "meanthickness"} or "thick" in measure_text:
        return "thickness"
    if measure_text in {"meancurv", "gauscurv", "curvind", "foldind"} or "curv" in measure_text:
        return "curvature"
    if measure_text in {"surfarea", "whitesurfarea"} or "area" in measure_text:
        return "surface_area"
    if measure_text == "numvert":
        return "vertex_count"
    if measure_text in {"volume_mm3", "grayvol"} or "vol" in measure_text:
        return "volume"
    return "other"


def normalize_long_features(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    """Validate and normalize a long prediction/reference table."""

    frame = frame.copy()
    if "case_id" not in frame and "subject" in frame:
        frame = frame.rename(columns={"subject": "case_id"})
    if "value" not in frame and "prediction" in frame:
        frame = frame.rename(columns={"prediction": "value"})
    required = {"case_id", "value"}
    missing = required.difference(frame.columns)
    if missing:
        raise ValueError(f"Feature table is missing required column(s): {sorted(missing)}")

    if "feature" not in frame:
        metadata = {"stats_name", "region", "measure"}
        if not metadata.issubset(frame.columns):
            raise ValueError("Feature table needs feature or stats_name/region/measure columns")
        frame["feature"] = [
            canonical_feature(s, r, m)
            for s, r, m in zip(frame["stats_name"], frame["region"], frame["measure"])
        ]

    parsed = [feature_parts(value) for value in frame["feature"]]
    for index, column in enumerate(("stats_name", "region", "measure")):
        if column not in frame:
            frame[column] = [parts[index] for parts in parsed]
    frame["method"] = str(method)
    frame["case_id"] = frame["case_id"].astype(str)
    frame["feature"] = frame["feature"].astype(str)
    frame["value"] = pd.to_numeric(frame["value"], errors="coerce")
    frame = frame[np.isfinite(frame["value"].to_numpy(dtype=float))].copy()
    frame["family"] = [
        feature_family(s, r, m)
        for s, r, m in zip(frame["stats_name"], frame["region"], frame["measure"])
    ]
    duplicates = frame.duplicated(["case_id", "feature"], keep=False)
    if duplicates.any():
        examples = frame.loc[duplicates, ["case_id", "feature"]].head(5).to_dict("records")
        raise ValueError(f"Duplicate case/feature predictions for {method}: {examples}")
    return frame.loc[:, CANONICAL_COLUMNS].sort_values(["case_id", "feature"]).reset_index(drop=True)


def _flatten_subject_stats(
    stats_dir: str | Path,
    case_id: str,
    *,
    stats_filenames: Iterable[str] = DEFAULT_REFERENCE_STATS,
    stats_filename_aliases: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    rows: list[dict[str, object]] = []
    stats_dir = Path(stats_dir)
    aliases = dict(stats_filename_aliases or {})
    for filename in stats_filenames:
        path = stats_dir / Path(filename).name
        if path.exists():
            # The logical name controls the canonical target namespace. This
            # is used only for documented tool-specific equivalents such as
            # FastSurfer's lh.aparc.DKTatlas.mapped.stats -> lh.aparc.stats.
            logical_name = aliases.get(Path(filename).name, Path(filename).name)
            rows.extend(flatten_stats_file(case_id, logical_name, path))
    if not rows:
        raise FileNotFoundError(f"No requested FreeSurfer stats files found in {stats_dir}")
    frame = pd.DataFrame(rows).rename(columns={"sample_id": "case_id", "target_name": "target"})
    parts = frame["target"].str.split(":", n=2, expand=True)
    frame["stats_name"] = parts[0]
    frame["region"] = parts[1]
    frame["measure"] = parts[2]
    frame["feature"] = [
        canonical_feature(s, r, m)
        for s, r, m in zip(frame["stats_name"], frame["region"], frame["measure"])
    ]
    return frame


def resolve_reference_stats_dir(
    case: ComparisonCase,
    *,
    tensor_root: str | Path = DEFAULT_TENSOR_ROOT,
    openneuro_stats_root: str | Path = DEFAULT_OPENNEURO_STATS_ROOT,
    fs8_stats_root: str | Path = DEFAULT_FS8_STATS_ROOT,
) -> Path:
    """Locate the cached FreeSurfer stats corresponding to a tensor test case."""

    image_path = Path(case.image_tensor).expanduser().resolve()
    candidates = [image_path.parent.parent / "stats"]
    tensor_root = Path(tensor_root).expanduser().resolve()
    try:
        relative = image_path.relative_to(tensor_root)
    except ValueError:
        relative = None
    if relative is not None and len(relative.parts) >= 3 and relative.parts[-2] == "mri":
        subject_root = Path(*relative.parts[:-2])
        candidates.append(Path(openneuro_stats_root).expanduser().resolve() / subject_root / "stats")
    candidates.append(Path(fs8_stats_root).expanduser().resolve() / image_path.parent.parent.name / "stats")
    for candidate in candidates:
        if all((candidate / filename).exists() for filename in DEFAULT_REFERENCE_STATS):
            return candidate
    raise FileNotFoundError(
        f"Could not locate FreeSurfer reference stats for {case.case_id}; checked "
        + ", ".join(str(path) for path in candidates)
    )


def load_reference_features(
    cases: Sequence[ComparisonCase],
    *,
    stats_filenames: Iterable[str] = DEFAULT_REFERENCE_STATS,
    **resolver_kwargs,
) -> pd.DataFrame:
    frames = []
    for case in cases:
        stats_dir = resolve_reference_stats_dir(case, **resolver_kwargs)
        frames.append(_flatten_subject_stats(stats_dir, case.case_id, stats_filenames=stats_filenames))
    if not frames:
        return pd.DataFrame(columns=CANONICAL_COLUMNS)
    return normalize_long_features(pd.concat(frames, ignore_index=True), "freesurfer_reference")


def load_scalesurfer_predictions(
    subjects_dir: str | Path,
    case_ids: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Load exact ScaleSurfer stats CSV sidecars from a subjects directory."""

    subjects_dir = Path(subjects_dir)
    subjects = list(map(str, case_ids)) if case_ids is not None else sorted(
        path.parent.parent.name
        for path in subjects_dir.glob("*/stats/scalesurfer_stats_long.csv")
    )
    frames = []
    for subject in subjects:
        path = subjects_dir / subject / "stats/scalesurfer_stats_long.csv"
        if path.exists():
            frame = pd.read_csv(path)
            frame["case_id"] = subject
            frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=CANONICAL_COLUMNS)
    return normalize_long_features(pd.concat(frames, ignore_index=True), "scalesurfer")


def load_freesurfer_subjects(
    subjects_dir: str | Path,
    method: str,
    case_ids: Sequence[str] | None = None,
    *,
    stats_filenames: Iterable[str] = DEFAULT_REFERENCE_STATS,
) -> pd.DataFrame:
    """Load any pipeline that writes FreeSurfer-compatible ``stats/*.stats``."""

    subjects_dir = Path(subjects_dir)
    subjects = list(map(str, case_ids)) if case_ids is not None else sorted(
        path.parent.name for path in subjects_dir.glob("*/stats") if path.is_dir()
    )
    frames = []
    for subject in subjects:
        stats_dir = subjects_dir / subject / "stats"
        if stats_dir.is_dir():
            frames.append(_flatten_subject_stats(stats_dir, subject, stats_filenames=stats_filenames))
    if not frames:
        return pd.DataFrame(columns=CANONICAL_COLUMNS)
    return normalize_long_features(pd.concat(frames, ignore_index=True), method)


def load_fastsurfer_subjects(
    subjects_dir: str | Path,
    case_ids: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Load FastSurfer's documented DKT stats into exact FS target names.

    Full FastSurfer runs can use either standard FreeSurfer names or DKT-specific
    names depending on version and enabled stages. Exactly one preferred file is
    selected for each of aseg, left aparc, and right aparc to avoid duplicates.
    """

    subjects_dir = Path(subjects_dir)
    subjects = list(map(str, case_ids)) if case_ids is not None else sorted(
        path.parent.name for path in subjects_dir.glob("*/stats") if path.is_dir()
    )
    candidates = {
        "aseg.stats": ("aseg.stats", "aseg+DKT.stats", "aseg+DKT.VINN.stats"),
        "lh.aparc.stats": (
            "lh.aparc.stats",
            "lh.aparc.DKTatlas.mapped.stats",
            "lh.aparc.DKTatlas.stats",
        ),
        "rh.aparc.stats": (
            "rh.aparc.stats",
            "rh.aparc.DKTatlas.mapped.stats",
            "rh.aparc.DKTatlas.stats",
        ),
    }
    frames = []
    for subject in subjects:
        stats_dir = subjects_dir / subject / "stats"
        selected: list[str] = []
        aliases: dict[str, str] = {}
        for logical_name, physical_candidates in candidates.items():
            physical_name = next(
                (name for name in physical_candidates if (stats_dir / name).exists()),
                None,
            )
            if physical_name is not None:
                selected.append(physical_name)
                aliases[physical_name] = logical_name
        if selected:
            frames.append(
                _flatten_subject_stats(
                    stats_dir,
                    subject,
                    stats_filenames=selected,
                    stats_filename_aliases=aliases,
                )
            )
    if not frames:
        return pd.DataFrame(columns=CANONICAL_COLUMNS)
    return normalize_long_features(pd.concat(frames, ignore_index=True), "fastsurfer")


def _load_feature_mapping(mapping: str | Path | Mapping[str, str] | None) -> dict[str, str]:
    if mapping is None:
        return {}
    if isinstance(mapping, Mapping):
        return {str(key): str(value) for key, value in mapping.items()}
    frame = pd.read_csv(mapping)
    if not {"source_feature", "feature"}.issubset(frame.columns):
        raise ValueError("Feature mapping CSV needs source_feature and feature columns")
    return dict(zip(frame["source_feature"].astype(str), frame["feature"].astype(str)))


def load_wide_predictions(
    path: str | Path,
    method: str,
    *,
    case_column: str = "case_id",
    feature_mapping: str | Path | Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Import author-supplied wide predictions (e.g. HerstonNet/Rebsamen).

    Without a mapping, every prediction column must already use the canonical
    ``stats__region__measure`` name.  This is intentionally strict.
    """

    frame = pd.read_csv(path)
    if case_column not in frame:
        unnamed = [column for column in frame if str(column).startswith("Unnamed:")]
        if len(unnamed) == 1:
            frame = frame.rename(columns={unnamed[0]: case_column})
        else:
            raise ValueError(f"Missing case column {case_column!r} in {path}")
    mapping = _load_feature_mapping(feature_mapping)
    value_columns = [column for column in frame if column != case_column]
    if mapping:
        unknown = sorted(set(map(str, value_columns)) - set(mapping))
        if unknown:
            raise ValueError(f"Prediction columns missing from feature mapping: {unknown[:10]}")
    else:
        unknown = [str(column) for column in value_columns if "__" not in str(column)]
        if unknown:
            raise ValueError(
                "Non-canonical prediction columns require a feature_mapping; examples: "
                + ", ".join(unknown[:10])
            )
        mapping = {str(column): str(column) for column in value_columns}
    long = frame.melt(id_vars=case_column, value_vars=value_columns, var_name="source_feature")
    long = long.rename(columns={case_column: "case_id"})
    long["feature"] = long["source_feature"].astype(str).map(mapping)
    return normalize_long_features(long, method)


def load_cortexmorph_predictions(
    path: str | Path,
    *,
    method: str = "cortexmorph",
    case_column: str = "case_id",
) -> pd.DataFrame:
    """Import the ``thickness_stats.csv`` written by CortexMorph."""

    frame = pd.read_csv(path)
    if case_column not in frame:
        unnamed = [column for column in frame if str(column).startswith("Unnamed:")]
        if len(unnamed) == 1:
            frame = frame.rename(columns={unnamed[0]: case_column})
        else:
            raise ValueError(f"Could not identify CortexMorph case IDs in {path}")
    mapping: dict[str, str] = {}
    for column in frame.columns:
        text = str(column)
        if text == case_column or text == "voxel_volume":
            continue
        if text in {"lh-MeanThickness", "rh-MeanThickness"}:
            hemi = text[:2]
            mapping[text] = canonical_feature(f"{hemi}.aparc", "global", "MeanThickness")
            continue
        if text.startswith(("lh-", "rh-")):
            hemi, region = text.split("-", 1)
            mapping[text] = canonical_feature(f"{hemi}.aparc", region, "ThickAvg")
    if not mapping:
        raise ValueError(f"No CortexMorph DKT thickness columns found in {path}")
    long = frame[[case_column, *mapping]].melt(
        id_vars=case_column,
        value_vars=list(mapping),
        var_name="source_feature",
    )
    long = long.rename(columns={case_column: "case_id"})
    long["feature"] = long["source_feature"].map(mapping)
    return normalize_long_features(long, method)


def load_normalized_predictions(path: str | Path, method: str) -> pd.DataFrame:
    """Load a canonical long CSV for any external method."""

    return normalize_long_features(pd.read_csv(path), method)


def _agreement(reference: np.ndarray, prediction: np.ndarray) -> dict[str, float]:
    reference = np.asarray(reference, dtype=np.float64)
    prediction = np.asarray(prediction, dtype=np.float64)
    error = prediction - reference
    n = len(reference)
    if n < 2 or np.std(reference, ddof=1) == 0 or np.std(prediction, ddof=1) == 0:
        pearson = np.nan
    else:
        pearson = float(np.corrcoef(reference, prediction)[0, 1])
    mean_ref, mean_pred = float(reference.mean()), float(prediction.mean())
    var_ref = float(reference.var(ddof=1)) if n > 1 else 0.0
    var_pred = float(prediction.var(ddof=1)) if n > 1 else 0.0
    covariance = float(np.cov(reference, prediction, ddof=1)[0, 1]) if n > 1 else 0.0
    ccc_denom = var_ref + var_pred + (mean_ref - mean_pred) ** 2
    ccc = 2 * covariance / ccc_denom if ccc_denom > 0 else np.nan
    total = float(np.square(reference - mean_ref).sum())
    r2 = 1.0 - float(np.square(error).sum()) / total if total > 0 else np.nan
    return {
        "n": int(n),
        "mae": float(np.abs(error).mean()),
        "rmse": float(np.sqrt(np.square(error).mean())),
        "bias": float(error.mean()),
        "pearson_r": pearson,
        "ccc": float(ccc),
        "r2": float(r2),
    }


def evaluate_feature_predictions(
    reference: pd.DataFrame,
    predictions: pd.DataFrame | Sequence[pd.DataFrame],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Evaluate exact shared targets and return observations/features/summary."""

    reference = normalize_long_features(reference, "freesurfer_reference")
    if isinstance(predictions, pd.DataFrame):
        prediction_frame = predictions.copy()
    else:
        nonempty = [frame for frame in predictions if frame is not None and not frame.empty]
        prediction_frame = pd.concat(nonempty, ignore_index=True) if nonempty else pd.DataFrame()
    if prediction_frame.empty:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    normalized = [normalize_long_features(frame, str(method)) for method, frame in prediction_frame.groupby("method")]
    prediction_frame = pd.concat(normalized, ignore_index=True)

    ref = reference.rename(columns={"value": "reference"})[
        ["case_id", "feature", "stats_name", "region", "measure", "family", "reference"]
    ]
    pred = prediction_frame.rename(columns={"value": "prediction"})[
        ["method", "case_id", "feature", "prediction"]
    ]
    observations = pred.merge(ref, on=["case_id", "feature"], how="inner", validate="many_to_one")
    observations["error"] = observations["prediction"] - observations["reference"]
    observations["absolute_error"] = observations["error"].abs()
    observations["squared_error"] = observations["error"] ** 2

    ref_std = ref.groupby("feature")["reference"].std().rename("reference_sd")
    observations = observations.merge(ref_std, on="feature", how="left")
    observations["normalized_absolute_error"] = observations["absolute_error"] / observations[
        "reference_sd"
    ].replace(0, np.nan)

    feature_rows = []
    for (method, feature), group in observations.groupby(["method", "feature"], sort=True):
        metrics = _agreement(group["reference"].to_numpy(), group["prediction"].to_numpy())
        first = group.iloc[0]
        feature_rows.append(
            {
                "method": method,
                "feature": feature,
                "stats_name": first["stats_name"],
                "region": first["region"],
                "measure": first["measure"],
                "family": first["family"],
                "normalized_mae": float(group["normalized_absolute_error"].mean()),
                **metrics,
            }
        )
    per_feature = pd.DataFrame(feature_rows)

    reference_feature_count = ref.groupby("case_id")["feature"].nunique().median()
    summary_rows = []
    for method, group in observations.groupby("method", sort=True):
        features = per_feature[per_feature["method"].eq(method)]
        n_features = int(group["feature"].nunique())
        summary_rows.append(
            {
                "method": method,
                "n_cases": int(group["case_id"].nunique()),
                "n_features": n_features,
                "feature_coverage": float(n_features / reference_feature_count) if reference_feature_count else np.nan,
                "median_feature_mae": float(features["mae"].median()),
                "median_normalized_mae": float(features["normalized_mae"].median()),
                "median_pearson_r": float(features["pearson_r"].median()),
                "median_ccc": float(features["ccc"].median()),
            }
        )
    summary = pd.DataFrame(summary_rows)
    if not summary.empty:
        display = {name: spec.display_name for name, spec in METHOD_SPECS.items()}
        kinds = {name: spec.prediction_kind for name, spec in METHOD_SPECS.items()}
        direct = {name: spec.directly_predicts_stats for name, spec in METHOD_SPECS.items()}
        summary["display_name"] = summary["method"].map(display).fillna(summary["method"])
        summary["prediction_kind"] = summary["method"].map(kinds).fillna("external")
        summary["directly_predicts_stats"] = summary["method"].map(direct).fillna(False).astype(bool)
    return observations, per_feature, summary


def summarize_by_family(per_feature: pd.DataFrame) -> pd.DataFrame:
    """Aggregate scale-normalized agreement within comparable feature families."""

    if per_feature.empty:
        return pd.DataFrame()
    return (
        per_feature.groupby(["method", "family"], as_index=False)
        .agg(
            n_features=("feature", "nunique"),
            median_normalized_mae=("normalized_mae", "median"),
            median_pearson_r=("pearson_r", "median"),
            median_ccc=("ccc", "median"),
        )
        .sort_values(["family", "median_normalized_mae"])
        .reset_index(drop=True)
    )


__all__ = [
    "CANONICAL_COLUMNS",
    "DEFAULT_FS8_STATS_ROOT",
    "DEFAULT_OPENNEURO_STATS_ROOT",
    "DEFAULT_OUTPUT_ROOT",
    "DEFAULT_REFERENCE_STATS",
    "FeatureMethodSpec",
    "METHOD_SPECS",
    "canonical_feature",
    "evaluate_feature_predictions",
    "feature_family",
    "feature_parts",
    "load_cortexmorph_predictions",
    "load_fastsurfer_subjects",
    "load_freesurfer_subjects",
    "load_normalized_predictions",
    "load_reference_features",
    "load_scalesurfer_predictions",
    "load_wide_predictions",
    "method_catalog",
    "normalize_long_features",
    "resolve_reference_stats_dir",
    "summarize_by_family",
]
