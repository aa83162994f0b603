"""
Interpretation result object and node-attribution view helpers.

Why this file exists
--------------------
This file holds the user-facing interpretation result type and the logic
that turns per-site node tables into filtered summaries. Keeping that
view logic here separates table shaping from Captum execution.

Role in the package
-------------------
This is an interpretation-result module. It should construct
``InterpretationResult`` objects and apply node filters / site
aggregation. It should not run Captum, validate public interpret_model
inputs, or compile graphs.
"""

from typing import Any, Literal, cast
from warnings import warn

import numpy as np
import pandas as pd
import torch

from ..utils.constants import is_visible_domain_node
from ..utils.errors import Edge2TorchError

NodeFilter = Literal["hidden", "all", "non_input"]
SiteAggregation = Literal["peak", "mean_abs", "last"]

_SUPPORTED_NODE_FILTERS = ("hidden", "all", "non_input")
_SUPPORTED_AGGREGATIONS = ("peak", "mean_abs", "last")
_DEFAULT_AGGREGATION: SiteAggregation = "peak"


class InterpretationResult:
    """
    Attribution tables produced by ``interpret_model()``.

    Feature results expose ``table``. Node results expose ``sites`` and
    ``summary()``. Accessing the wrong ``on`` value's attributes raises
    ``Edge2TorchError``.

    Attributes
    ----------
    on : str
        What was attributed onto. One of ``"features"`` or ``"nodes"``.
    table : pandas.DataFrame
        Feature-attribution table (examples × features). Available only
        when ``on="features"``. Values are signed Captum scores.
    sites : dict[str, pandas.DataFrame]
        Per-site node-attribution tables, keyed by ``layer_*`` or
        ``step_*``. Each table has the visible graph nodes exposed at
        that site. Available only when ``on="nodes"``. Feedforward sites
        omit input nodes; state-update sites include them. Values are
        signed Captum scores.
    summary : (nodes="hidden", aggregation="peak") -> pandas.DataFrame
        Collapsed examples × nodes table from ``sites``. ``nodes`` is
        ``"hidden"``, ``"non_input"``, or ``"all"``. ``"all"`` includes
        inputs only on ``state_update``. ``aggregation`` is ``"peak"``,
        ``"mean_abs"``, or ``"last"`` and applies only to state_update.
        ``"peak"`` and ``"last"`` keep the sign; ``"mean_abs"`` does
        not. Feedforward concatenates disjoint columns and warns if a
        non-default ``aggregation`` is passed.
    """

    on: str
    _table: pd.DataFrame | None
    _sites: dict[str, pd.DataFrame] | None
    _artifact: Any | None

    def __init__(
        self,
        *,
        on: str,
        table: pd.DataFrame | None = None,
        sites: dict[str, pd.DataFrame] | None = None,
        artifact: Any | None = None,
    ) -> None:
        if on not in {"features", "nodes"}:
            raise Edge2TorchError(
                f"Unsupported on '{on}'. Expected one of: features, nodes."
            )

        if on == "features":
            if table is None:
                raise Edge2TorchError(
                    "Feature interpretation requires a 'table' DataFrame."
                )
            if sites is not None or artifact is not None:
                raise Edge2TorchError(
                    "Feature interpretation does not accept 'sites' or "
                    "'artifact'."
                )
            self.on = "features"
            self._table = table.copy()
            self._sites = None
            self._artifact = None
            return

        if sites is None or artifact is None:
            raise Edge2TorchError(
                "Node interpretation requires 'sites' and 'artifact'."
            )
        if table is not None:
            raise Edge2TorchError(
                "Node interpretation does not accept a feature 'table'."
            )
        if not sites:
            raise Edge2TorchError(
                "Cannot build a node interpretation result from empty "
                "site results."
            )

        self.on = "nodes"
        self._table = None
        self._sites = {
            site_id: site_table.copy() for site_id, site_table in sites.items()
        }
        self._artifact = artifact

    @property
    def table(self) -> pd.DataFrame:
        """
        Feature-attribution table (examples × features).
        """
        if self.on != "features" or self._table is None:
            raise Edge2TorchError(
                "'.table' is only available when on='features'."
            )
        return self._table.copy()

    @property
    def sites(self) -> dict[str, pd.DataFrame]:
        """
        Per-site node-attribution tables for the visible graph nodes
        exposed at each site.
        """
        if self.on != "nodes" or self._sites is None:
            raise Edge2TorchError("'.sites' is only available when on='nodes'.")
        return {
            site_id: site_table.copy()
            for site_id, site_table in self._sites.items()
        }

    def summary(
        self,
        nodes: NodeFilter = "hidden",
        aggregation: SiteAggregation = "peak",
    ) -> pd.DataFrame:
        """
        Collapse per-site node tables into one example × node DataFrame.

        Parameters
        ----------
        nodes : {"hidden", "non_input", "all"}, default="hidden"
            Which visible graph nodes to include as columns. Columns
            come from ``sites``. ``"all"`` includes inputs only when a
            site lists them (``state_update``), not on ``feedforward``.
        aggregation : {"peak", "mean_abs", "last"}, default="peak"
            How to combine repeated node columns across state-update
            steps. Ignored for feedforward summaries, which concatenate
            disjoint site columns. Passing a non-default value for a
            feedforward result emits a warning.

            ``sites`` (and ``table`` for features) store signed Captum
            scores. ``"peak"`` keeps the signed score from the step with
            largest absolute magnitude. ``"last"`` is also signed.
            ``"mean_abs"`` averages magnitudes and is the only option
            that drops the sign. Call ``.abs()`` yourself if a ranking
            or plot should use magnitude.
        """
        if self.on != "nodes" or self._sites is None:
            raise Edge2TorchError(
                "'.summary()' is only available when on='nodes'."
            )

        _validate_summary_options(nodes=nodes, aggregation=aggregation)
        _warn_if_unused_feedforward_aggregation(
            artifact=self._artifact,
            aggregation=aggregation,
        )

        filtered_sites = _filter_site_tables(
            site_results=self._sites,
            artifact=self._artifact,
            nodes=nodes,
        )

        return _build_summary_attribution(
            artifact=self._artifact,
            site_results=filtered_sites,
            site_aggregation=aggregation,
        )


def _warn_if_unused_feedforward_aggregation(
    artifact: Any,
    aggregation: SiteAggregation,
) -> None:
    """
    Warn when a non-default aggregation is passed for feedforward summaries.
    """
    if artifact.backend != "feedforward":
        return
    if aggregation == _DEFAULT_AGGREGATION:
        return

    warn(
        "summary(aggregation=...) has no effect on feedforward results. "
        "Feedforward site columns are disjoint, so they are concatenated. "
        f"The requested aggregation='{aggregation}' was ignored.",
        UserWarning,
        stacklevel=3,
    )


def _validate_summary_options(nodes, aggregation) -> None:
    """
    Validate node-filter and aggregation arguments for ``summary()``.
    """
    if nodes not in _SUPPORTED_NODE_FILTERS:
        supported = ", ".join(_SUPPORTED_NODE_FILTERS)
        raise Edge2TorchError(
            f"Unsupported nodes filter '{nodes}'. Expected one of: {supported}."
        )

    if aggregation not in _SUPPORTED_AGGREGATIONS:
        supported = ", ".join(_SUPPORTED_AGGREGATIONS)
        raise Edge2TorchError(
            f"Unsupported aggregation '{aggregation}'. "
            f"Expected one of: {supported}."
        )


def _filter_site_tables(
    site_results: dict[str, pd.DataFrame],
    artifact: Any,
    nodes: NodeFilter,
) -> dict[str, pd.DataFrame]:
    """
    Keep visible node columns matching the requested filter.
    """
    filtered: dict[str, pd.DataFrame] = {}

    for site_id in sorted(site_results.keys(), key=_site_sort_key):
        site_table = site_results[site_id]
        selected_columns = [
            str(column)
            for column in site_table.columns
            if _should_include_node(
                node_name=str(column),
                artifact=artifact,
                nodes=nodes,
            )
        ]
        if selected_columns:
            selected = site_table.loc[:, selected_columns]
            if isinstance(selected, pd.Series):
                selected = selected.to_frame()
            filtered[site_id] = cast(pd.DataFrame, selected)

    if not filtered:
        raise Edge2TorchError(
            "Node interpretation produced no visible nodes for the "
            f"requested node filter '{nodes}'."
        )

    return filtered


def _build_summary_attribution(
    artifact: Any,
    site_results: dict[str, pd.DataFrame],
    site_aggregation: SiteAggregation,
) -> pd.DataFrame:
    """
    Build one node-importance table from per-site attribution results.
    """
    if not site_results:
        raise Edge2TorchError(
            "Cannot build summary node attribution from empty site results."
        )

    if artifact.backend == "feedforward":
        return _merge_feedforward_site_attributions(site_results)

    if artifact.backend == "state_update":
        return _aggregate_state_update_site_attributions(
            site_results=site_results,
            site_aggregation=site_aggregation,
        )

    raise Edge2TorchError(
        f"Unsupported backend '{artifact.backend}' for summary node "
        "attribution."
    )


def _merge_feedforward_site_attributions(
    site_results: dict[str, pd.DataFrame],
) -> pd.DataFrame:
    """
    Merge disjoint feedforward site tables into one summary DataFrame.
    """
    site_ids = sorted(site_results.keys(), key=_site_sort_key)
    summary = site_results[site_ids[0]]

    for site_id in site_ids[1:]:
        summary = pd.concat([summary, site_results[site_id]], axis=1)

    return summary


def _aggregate_state_update_site_attributions(
    site_results: dict[str, pd.DataFrame],
    site_aggregation: SiteAggregation,
) -> pd.DataFrame:
    """
    Aggregate repeated node columns across state-update steps.
    """
    site_ids = sorted(site_results.keys(), key=_site_sort_key)

    if site_aggregation == "last":
        return site_results[site_ids[-1]].copy()

    arrays = np.stack(
        [site_results[site_id].to_numpy() for site_id in site_ids],
        axis=0,
    )

    if site_aggregation == "peak":
        abs_arrays = np.abs(arrays)
        max_indices = abs_arrays.argmax(axis=0)
        n_sites, n_samples, n_nodes = arrays.shape

        row_indices = np.arange(n_samples)[:, None]
        col_indices = np.arange(n_nodes)[None, :]
        summary_values = arrays[max_indices, row_indices, col_indices]

        return pd.DataFrame(
            summary_values,
            index=site_results[site_ids[0]].index,
            columns=site_results[site_ids[0]].columns,
        )

    if site_aggregation == "mean_abs":
        summary_values = np.mean(np.abs(arrays), axis=0)

        return pd.DataFrame(
            summary_values,
            index=site_results[site_ids[0]].index,
            columns=site_results[site_ids[0]].columns,
        )

    raise Edge2TorchError(f"Unsupported site aggregation '{site_aggregation}'.")


def _filter_site_attributions(
    attributions: torch.Tensor,
    node_names: list[str],
    artifact: Any,
    nodes: NodeFilter,
) -> tuple[list[str], torch.Tensor]:
    """
    Filter site attributions to the requested node subset.
    """
    selected_indices = [
        idx
        for idx, node_name in enumerate(node_names)
        if _should_include_node(
            node_name=node_name,
            artifact=artifact,
            nodes=nodes,
        )
    ]

    if not selected_indices:
        return [], attributions[:, :0]

    selected_node_names = [node_names[idx] for idx in selected_indices]
    selected_attributions = attributions[:, selected_indices]

    return selected_node_names, selected_attributions


def _should_include_node(
    node_name: str,
    artifact: Any,
    nodes: NodeFilter,
) -> bool:
    """
    Return True if a node should be included for the requested node filter.
    """
    if not is_visible_domain_node(node_name):
        return False

    if nodes == "all":
        return True

    if nodes == "hidden":
        return node_name in set(artifact.hidden_nodes)

    if nodes == "non_input":
        return node_name not in set(artifact.input_nodes)

    raise Edge2TorchError(f"Unsupported node filter '{nodes}'.")


def _site_sort_key(site_id: str) -> tuple[int, int]:
    """
    Sort interpretation site identifiers from any backend.
    """
    if site_id.startswith("layer_"):
        try:
            return (0, int(site_id.split("_")[1]))
        except (IndexError, ValueError) as exc:
            raise Edge2TorchError(
                f"Invalid interpretation site '{site_id}' in artifact."
            ) from exc

    if site_id.startswith("step_"):
        try:
            return (1, int(site_id.split("_")[1]))
        except (IndexError, ValueError) as exc:
            raise Edge2TorchError(
                f"Invalid interpretation site '{site_id}' in artifact."
            ) from exc

    raise Edge2TorchError(
        f"Invalid interpretation site '{site_id}' in artifact."
    )
