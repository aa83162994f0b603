from . import (  # noqa: F401
    aliases,
    analyze_utils,
    collator,
    experiments,
    metrics,
    models,
    prompts,
    run_args,
    trainers,
    trainers_baseline,
)
from .api import (  # noqa: F401
    invert_embeddings,
    invert_embeddings_and_return_hypotheses,
    invert_strings,
    load_corrector,
    load_pretrained_corrector,
)
from .trainers import Corrector  # noqa: F401
