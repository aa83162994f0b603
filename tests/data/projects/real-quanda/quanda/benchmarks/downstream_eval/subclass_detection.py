"""Benchmark for subclass detection task."""

import logging
from typing import Dict, Optional

import torch

from quanda.benchmarks.base import Benchmark
from quanda.metrics.downstream_eval import SubclassDetectionMetric
from quanda.utils.common import ds_len
from quanda.utils.datasets.transformed.label_grouping import (
    LabelGroupingDataset,
)

logger = logging.getLogger(__name__)


class SubclassDetection(Benchmark):
    """Benchmark for subclass detection task.

    A model is trained on a dataset where labels are grouped into superclasses.
    The metric evaluates the performance of an attribution method in detecting
    the subclass of a test sample from its highest attributed training point.

    References
    ----------
    1) Hanawa, K., Yokoi, S., Hara, S., & Inui, K. (2021). Evaluation of
    similarity-based explanations. In International Conference on Learning
    Representations.

    """

    name: str = "Subclass Detection"
    eval_args = [
        "test_targets",
        "explanations",
        "test_data",
        "test_superclass_targets",
    ]
    default_use_predictions: bool = True
    default_filter_by_prediction: bool = True
    default_s: int = 1

    def __init__(
        self,
        *args,
        class_to_group: Optional[Dict[int, int]] = None,
        s: int = 1,
        filter_by_prediction: bool = True,
        **kwargs,
    ):
        """Initialize the Subclass Detection benchmark.

        Parameters
        ----------
        *args
            Positional arguments passed to the base class.
        class_to_group : Optional[Dict[int, int]]
            Mapping from class index to group index.
        s : int, optional
            Number of top-attributed training points to consider in the
            same-subclass fraction computation, by default 1.
        filter_by_prediction : bool, optional
            Whether to filter the test samples to only calculate the metric on
            those samples, where the correct superclass is predicted, by
            default True.
        **kwargs
            Arguments passed to the base Benchmark class.

        """
        super().__init__(*args, **kwargs)
        self.class_to_group = class_to_group
        self.s = s
        self.filter_by_prediction = filter_by_prediction

        # Ensure all datasets use the same class_to_group mapping.
        if class_to_group is not None:
            for ds in (
                self.train_dataset,
                self.eval_dataset,
                self.val_dataset,
            ):
                if isinstance(ds, LabelGroupingDataset):
                    ds.class_to_group = class_to_group

    @classmethod
    def _extra_kwargs_from_config(
        cls,
        config: dict,
        train_dataset: torch.utils.data.Dataset,
        eval_dataset: torch.utils.data.Dataset,
        metadata_dir: str,
        load_fresh: bool,
    ) -> dict:
        """Extract subclass detection kwargs from config."""
        if not isinstance(train_dataset, LabelGroupingDataset):
            raise ValueError(
                "The train dataset must be a LabelGroupingDataset."
            )

        return {
            "class_to_group": train_dataset.class_to_group,
            "s": config.get("detection_s", cls.default_s),
            "filter_by_prediction": config.get(
                "filter_by_prediction", cls.default_filter_by_prediction
            ),
        }

    def evaluate(
        self,
        explainer_cls: type,
        expl_kwargs: Optional[dict] = None,
        batch_size: int = 8,
        max_eval_n: Optional[int] = 1000,
        eval_seed: int = 42,
        cache_dir: Optional[str] = None,
        use_cached_expl: bool = False,
        use_hf_expl: bool = False,
        inference_batch_size: Optional[int] = None,
        bootstrap: bool = False,
        *args,
        **kwargs,
    ):
        """Evaluate the benchmark using a given explanation method.

        Parameters
        ----------
        explainer_cls: type
            The explanation class inheriting from the base Explainer class to
            be used for evaluation.
        expl_kwargs: Optional[dict], optional
            Keyword arguments for the explainer, by default None.
        batch_size: int, optional
            Batch size for the evaluation, by default 8.
        max_eval_n: Optional[int], optional
            Maximum number of evaluation samples to use. If None, uses the
            entire evaluation dataset. By default 1000.
        eval_seed: int, optional
            Random seed for evaluation sampling, by default 42.
        cache_dir: Optional[str], optional
            Directory where cached explanations are stored. Required if
            `use_cached_expl` or `use_hf_expl` is True. By default None.
        use_cached_expl: bool, optional
            Whether to use cached explanations, by default False.
        use_hf_expl: bool, optional
            Whether to use Hugging Face cached explanations, by default False.
            If use_cached_expl is also True, will prioritize local cache over
            HF cache.
        inference_batch_size: Optional[int], optional
            If set, split the per-batch model forward (prediction and any
            forward inside the metric) into sub-batches of this size.
            ``None`` keeps the full ``batch_size`` forward.
        bootstrap: bool
            Whether to return bootstrapped metric score, if available,
            instead of the single-point estimate.
            By default False.
        args: Any
            Additional arguments.
        kwargs: Any
            Additional keyword arguments.

        Returns
        -------
                Dict[str, float]
                    Dictionary containing the metric score.

        """
        if not isinstance(self.train_dataset, LabelGroupingDataset):
            raise ValueError(
                "The train dataset must be a LabelGroupingDataset."
            )

        train_subclass_labels = torch.tensor(
            [
                self.train_dataset.get_original_label(s)
                for s in range(ds_len(self.train_dataset.dataset))
            ]
        )
        if not isinstance(self.eval_dataset, LabelGroupingDataset):
            raise ValueError(
                "The eval dataset must be a LabelGroupingDataset."
            )

        precomputed = self._resolve_precomputed_explanations(
            cache_dir=cache_dir,
            use_cached_expl=use_cached_expl,
            use_hf_expl=use_hf_expl,
        )
        explainer = (
            None
            if precomputed is not None
            else self._prepare_explainer(
                dataset=self.train_dataset,
                explainer_cls=explainer_cls,
                expl_kwargs=expl_kwargs,
            )
        )

        metric = SubclassDetectionMetric(
            model=self.model,
            checkpoints=self.checkpoints,
            train_dataset=self.train_dataset,
            s=self.s,
            checkpoints_load_func=self.checkpoints_load_func,
            train_subclass_labels=train_subclass_labels,
            filter_by_prediction=self.filter_by_prediction,
            inference_batch_size=inference_batch_size,
        )

        # using the pre class-to-group dataset for evaluation
        return self._evaluate_dataset(
            eval_dataset=self.eval_dataset.dataset,
            explainer=explainer,
            metric=metric,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
            precomputed_explanations=precomputed,
            inference_batch_size=inference_batch_size,
            bootstrap=bootstrap,
        )

    def _compute_and_save_indices(self, config: dict, batch_size: int = 8):
        """Determine the indices of eval dataset.

        Filter by labels and predictions. By default,
        all samples are kept.

        Parameters
        ----------
        config : dict
            Benchmark configuration dictionary (needed for save path).
        batch_size : int, optional
            Batch size for the inference pass, by default 8.

        """
        super()._compute_and_save_filter_by_labels_and_prediction(
            config=config,
            batch_size=batch_size,
            filter_by_prediction=self.filter_by_prediction,
        )

    def sanity_check(self, batch_size: int = 32) -> dict:
        """Compute accuracy on shortcut datapoints as a sanity check.

        Parameters
        ----------
        batch_size : int, optional
            Batch size to be used for the evaluation, default to 32.

        Returns
        -------
        dict
            Dictionary containing the evaluation results.

        """
        results = super().sanity_check(batch_size)

        # .dataset is the Subset created by apply_filter;
        # .dataset.dataset is the pre-filter eval split.
        if hasattr(self.eval_dataset, "dataset") and hasattr(
            self.eval_dataset.dataset, "dataset"
        ):
            results["eval_post_filter_percentage"] = ds_len(
                self.eval_dataset
            ) / ds_len(self.eval_dataset.dataset.dataset)
        return results
