"""User-facing configuration for the ICDN pipeline."""

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class PanelSchema:
    """Maps the columns of your panel to the roles the model expects.

    The panel is a long table with one row per store, product and period. Only
    the first six fields are required; the rest enrich competitor selection and
    can be left as None.

    Attributes:
        store: store or point-of-sale identifier.
        product: product identifier.
        period: period identifier, expected to be sortable (e.g. a week index).
        price: unit price in levels (strictly positive). Logged internally.
        units: units sold (strictly positive). Transformed with log internally.
        promo: binary promotional flag.
        category: products only compete inside the same category.
        brand: brand identifier, biases competitor selection.
        style: sub-segment identifier, biases competitor selection.
        size: pack size, biases competitor selection toward similar formats.
    """

    store: str = "store_code"
    product: str = "product_code"
    period: str = "week_id"
    price: str = "price"
    units: str = "units"
    promo: str = "on_promo"
    category: str | None = None
    brand: str | None = None
    style: str | None = None
    size: str | None = None

    @property
    def required(self) -> list[str]:
        return [self.store, self.product, self.period, self.price, self.units, self.promo]

    @property
    def optional(self) -> dict[str, str]:
        candidates = {
            "category": self.category,
            "brand": self.brand,
            "style": self.style,
            "size": self.size,
        }
        return {role: col for role, col in candidates.items() if col is not None}

    def validate(self, columns) -> None:
        missing = [c for c in self.required if c not in columns]
        if missing:
            raise ValueError(
                f"the panel is missing required columns {missing}. "
                f"Adjust PanelSchema if your columns have different names."
            )
        missing_optional = [c for c in self.optional.values() if c not in columns]
        if missing_optional:
            raise ValueError(
                f"the panel is missing optional columns {missing_optional} "
                f"that are set in PanelSchema. Add them or set those schema fields to None."
            )


@dataclass
class ICDNConfig:
    """Everything needed to build and train an ICDN model.

    Defaults reproduce the configuration selected by the hyperparameter search
    of the original study, so a plain ``ICDNConfig()`` is a sensible starting
    point for weekly retail panels.

    Clarification:
    - lags, rolling_windows, seasonal_periods are all tuples of positive integers,
    but can be set to an empty tuple to disable the corresponding feature.
    """

    # ── Data ────────────────────────────────────────────────────────────────
    schema: PanelSchema = field(default_factory=PanelSchema)
    n_products: int | None = None
    lags: tuple[int, ...] = (1, 2, 4)
    rolling_windows: tuple[int, ...] = (4, 13)
    seasonal_periods: tuple[int, ...] = (52, 26, 13)
    min_coverage: float = 0.5
    min_products: int | None = None
    new_product_periods: int = 13

    # ── Architecture ────────────────────────────────────────────────────────
    n_knots: int = 3
    hidden: tuple[int, ...] = (256, 128, 64)
    activation: str = "gelu"
    dropout: float = 0.2547
    k_neighbors: int = 4
    d_store: int = 16
    d_brand: int = 8
    d_style: int = 8
    use_cross: bool = True
    enforce_negative_beta: bool = True
    same_category_first: bool = False

    # ── Objective ───────────────────────────────────────────────────────────
    huber_delta: float = 1.0
    lambda_smooth: float = 0.0351
    lambda_elast: float = 0.0445
    own_elasticity_bounds: tuple[float, float] = (-5.0, 0.0)
    cross_elasticity_bounds: tuple[float, float] = (-1.0, 1.0)

    # ── Training ────────────────────────────────────────────────────────────
    batch_size: int = 256
    warmup_epochs: int = 350
    epochs: int = 400
    warmup_lr: float = 1.6856e-3
    lr: float = 1.6246e-3
    weight_decay: float = 1e-5
    grad_clip: float = 1.0
    lr_patience: int = 30
    early_stopping_patience: int = 70
    smoothing_window: int = 8
    beta_prior: float = -2.0
    validation_fraction: float = 0.2
    seed: int = 42
    device: str = "auto"
    num_workers: int = 0
    verbose: bool = True

    def __post_init__(self):
        if isinstance(self.schema, dict):
            self.schema = PanelSchema(**self.schema)
        for name in ("lags", "rolling_windows", "seasonal_periods", "hidden"):
            setattr(self, name, tuple(getattr(self, name)))
        for name in ("own_elasticity_bounds", "cross_elasticity_bounds"):
            setattr(self, name, tuple(getattr(self, name)))

        if self.k_neighbors < 0:
            raise ValueError("k_neighbors must be >= 0")
        if not 0.0 < self.validation_fraction < 1.0:
            raise ValueError("validation_fraction must be in (0, 1)")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if self.epochs < 1:
            raise ValueError("epochs must be >= 1")
        if self.warmup_epochs < 0:
            raise ValueError("warmup_epochs must be >= 0")
        if self.n_knots < 1:
            raise ValueError("n_knots must be >= 1")
        if any(k < 1 for k in self.lags):
            raise ValueError("every lag must be >= 1")
        if any(w < 1 for w in self.rolling_windows):
            raise ValueError("every rolling window must be >= 1")
        lo, hi = self.own_elasticity_bounds
        if not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
            raise ValueError("own_elasticity_bounds must be finite")
        if lo >= hi:
            raise ValueError(f"own_elasticity_bounds are inverted: {lo} >= {hi}")
        lo, hi = self.cross_elasticity_bounds
        if not (math.isfinite(float(lo)) and math.isfinite(float(hi))):
            raise ValueError("cross_elasticity_bounds must be finite")
        if lo >= hi:
            raise ValueError(f"cross_elasticity_bounds are inverted: {lo} >= {hi}")
        if self.min_coverage < 0.0 or self.min_coverage > 1.0:
            raise ValueError("min_coverage must be in [0, 1]")
        if self.min_products is not None and self.min_products < 1:
            raise ValueError("min_products must be >= 1 when set")

        if self.n_products is not None and self.n_products < 2:
            raise ValueError("n_products must be >= 2 when set")
        if self.lambda_smooth < 0:
            raise ValueError("lambda_smooth must be >= 0")
        if self.lambda_elast < 0:
            raise ValueError("lambda_elast must be >= 0")
        if self.huber_delta <= 0:
            raise ValueError("huber_delta must be > 0")
        if self.lr <= 0:
            raise ValueError("lr must be > 0")
        if self.warmup_lr <= 0:
            raise ValueError("warmup_lr must be > 0")
        if self.weight_decay < 0:
            raise ValueError("weight_decay must be >= 0")
        if self.grad_clip <= 0:
            raise ValueError("grad_clip must be > 0")
        if self.smoothing_window < 1:
            raise ValueError("smoothing_window must be >= 1")
        if any(p < 1 for p in self.seasonal_periods):
            raise ValueError("every seasonal period must be >= 1")
        if self.num_workers < 0:
            raise ValueError("num_workers must be >= 0")
        if not self.hidden:
            raise ValueError("hidden must be a non-empty tuple of positive widths")
        if any(w < 1 for w in self.hidden):
            raise ValueError("every hidden width must be >= 1")
        allowed_act = {"gelu", "tanh", "softplus"}
        if self.activation not in allowed_act:
            raise ValueError(
                f"activation {self.activation!r} is unknown, use one of {sorted(allowed_act)}"
            )

    @classmethod
    def from_yaml(cls, path: str | Path) -> "ICDNConfig":
        import yaml

        with open(path) as handle:
            return cls.from_dict(yaml.safe_load(handle) or {})

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> "ICDNConfig":
        known = {f.name for f in fields(cls)}
        unknown = set(payload) - known
        if unknown:
            raise ValueError(f"unknown configuration keys: {sorted(unknown)}")
        return cls(**payload)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
