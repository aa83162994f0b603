"""Class Detection benchmark."""

import logging
from typing import Optional

import torch

from quanda.benchmarks.base import Benchmark
from quanda.metrics.downstream_eval import ClassDetectionMetric

logger = logging.getLogger(__name__)


class ClassDetection(Benchmark):
    """Benchmark for class detection task.

    This benchmark evaluates the effectiveness of an attribution method in
    detecting the class of a test sample from its highest attributed training
    point. Intuitively, a good attribution method should assign the highest
    attribution to the class of the test sample, as argued in Hanawa et al.
    (2021) and Kwon et al. (2024).

    References
    ----------
    1) Hanawa, K., Yokoi, S., Hara, S., & Inui, K. (2021). Evaluation of
    similarity-based explanations. In International Conference on Learning
    Representations.

    2) Kwon, Y., Wu, E., Wu, K., Zou, J., (2024). DataInf: Efficiently
    Estimating Data Influence in LoRA-tuned LLMs and Diffusion Models. The
    Twelfth International Conference on Learning Representations.

    """

    # TODO: remove USES PREDICTED LABELS https://arxiv.org/pdf/2006.04528
    name: str = "Class Detection"
    eval_args = ["test_data", "test_targets", "explanations"]
    default_use_predictions: bool = True
    default_filter_by_prediction: bool = False
    default_s: int = 1

    def __init__(
        self,
        *args,
        s: int = 1,
        filter_by_prediction: bool = False,
        **kwargs,
    ):
        """Initialize the Subclass Detection benchmark.

        Parameters
        ----------
        *args
            Positional arguments passed to the base class.
        s : int, optional
            Number of top-attributed training points to consider in the
            same-class fraction computation, by default 1.
        filter_by_prediction : bool, optional
            Whether to filter the test samples to only calculate the metric on
            those samples, where the correct class is predicted, by
            default False.
        **kwargs
            Arguments passed to the base Benchmark class.

        """
        super().__init__(*args, **kwargs)
        self.s = s
        self.filter_by_prediction = filter_by_prediction

    @classmethod
    def _extra_kwargs_from_config(
        cls,
        config: dict,
        train_dataset: torch.utils.data.Dataset,
        eval_dataset: torch.utils.data.Dataset,
        metadata_dir: str,
        load_fresh: bool,
    ) -> dict:
        """Extract class detection kwargs from config."""
        return {
            "s": config.get("detection_s", cls.default_s),
            "filter_by_prediction": config.get(
                "filter_by_prediction", cls.default_filter_by_prediction
            ),
        }

    def _compute_and_save_indices(self, config: dict, batch_size: int = 8):
        """Filter eval dataset by prediction correctness and save indices."""
        super()._compute_and_save_filter_by_labels_and_prediction(
            config=config,
            batch_size=batch_size,
            filter_by_prediction=self.filter_by_prediction,
        )

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
    ):
        """Evaluate the benchmark using a given explanation method.

        Parameters
        ----------
        explainer_cls: type
            The explanation class inheriting from the base Explainer
            class to be used for evaluation.
        expl_kwargs: Optional[dict], optional
            Keyword arguments for the explainer, by default None.
        batch_size: int, optional
            Batch size for the evaluation, by default 8.
        max_eval_n: Optional[int], optional
            Maximum number of evaluation samples to use. If None, uses
            the entire evaluation dataset. By default 1000.
        eval_seed: int, optional
            Random seed for evaluation sampling, by default 42.
        cache_dir: Optional[str], optional
            Directory where cached explanations are stored. Required if
            `use_cached_expl` or `use_hf_expl` is True. By default None.
        use_cached_expl: bool, optional
            Whether to use cached explanations, by default False.
        use_hf_expl: bool, optional
            Whether to use Hugging Face cached explanations,
            by default False.
            If use_cached_expl is also True, will prioritize
            local cache over HF cache.
        inference_batch_size: Optional[int], optional
            If set, split the per-batch model forward (prediction and
            any forward inside the metric) into sub-batches of this
            size. ``None`` keeps the full ``batch_size`` forward.
        bootstrap: bool
            Whether to return bootstrapped metric score, if available,
            instead of the single-point estimate.
            By default False.

        Returns
        -------
        Dict[str, float]
            Dictionary containing the metric score.

        """
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

        metric = ClassDetectionMetric(
            model=self.model,
            checkpoints=self.checkpoints,
            train_dataset=self.train_dataset,
            s=self.s,
            checkpoints_load_func=self.checkpoints_load_func,
            filter_by_prediction=self.filter_by_prediction,
            inference_batch_size=inference_batch_size,
        )

        return self._evaluate_dataset(
            eval_dataset=self.eval_dataset,
            explainer=explainer,
            metric=metric,
            batch_size=batch_size,
            max_eval_n=max_eval_n,
            eval_seed=eval_seed,
            precomputed_explanations=precomputed,
            inference_batch_size=inference_batch_size,
            bootstrap=bootstrap,
        )
