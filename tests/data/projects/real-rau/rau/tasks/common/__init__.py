from .data_preparation import (
    add_prepare_data_args,
    validate_prepare_data_args,
    get_token_types,
    get_token_types_in_file,
    prepare_file
)
from .data import load_prepared_data_file
from .model import pad_sequences
from .training_loop import (
    add_training_loop_arguments,
    get_training_loop_kwargs,
    TrainingLoop,
    get_random_generator_and_seed,
    get_random_seed,
    MicroAveragedScoreAccumulator,
    DictScoreAccumulator,
    evaluate,
    OutOfCUDAMemoryError
)