"""Functionality for evaluating Segment Anything models on microscopy data.
"""

from .instance_segmentation import (
    run_instance_segmentation_inference,
    run_instance_segmentation_grid_search,
    run_instance_segmentation_grid_search_and_inference,
)
from .evaluation import (
    run_evaluation,
    run_evaluation_for_iterative_prompting,
)
from .inference import (
    run_inference_with_iterative_prompting,
    run_inference_with_prompts,
    precompute_all_embeddings,
    precompute_all_prompts,
)
from .experiments import (
    default_experiment_settings,
    full_experiment_settings,
    get_experiment_setting_name,
)
