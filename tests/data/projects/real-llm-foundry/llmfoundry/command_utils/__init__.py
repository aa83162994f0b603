# Copyright 2024 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0
from llmfoundry.command_utils.data_prep.convert_dataset_hf import (
    convert_dataset_hf,
    convert_dataset_hf_from_args,
)
from llmfoundry.command_utils.data_prep.convert_dataset_json import (
    convert_dataset_json,
    convert_dataset_json_from_args,
)
from llmfoundry.command_utils.data_prep.convert_delta_to_contrastive_mds import (
    convert_delta_to_contrastive_mds,
)
from llmfoundry.command_utils.data_prep.convert_delta_to_json import (
    convert_delta_to_json_from_args,
    fetch_DT,
)
from llmfoundry.command_utils.data_prep.convert_finetuning_dataset import (
    convert_finetuning_dataset,
    convert_finetuning_dataset_from_args,
)
from llmfoundry.command_utils.data_prep.convert_text_to_mds import (
    convert_text_to_mds,
    convert_text_to_mds_from_args,
)
from llmfoundry.command_utils.eval import (
    eval_from_yaml,
    evaluate,
)
from llmfoundry.command_utils.train import (
    TRAIN_CONFIG_KEYS,
    TrainConfig,
    train,
    train_from_yaml,
    validate_config,
)

__all__ = [
    'train',
    'train_from_yaml',
    'TrainConfig',
    'TRAIN_CONFIG_KEYS',
    'validate_config',
    'evaluate',
    'eval_from_yaml',
    'convert_dataset_hf',
    'convert_dataset_hf_from_args',
    'convert_dataset_json',
    'convert_dataset_json_from_args',
    'convert_delta_to_contrastive_mds',
    'convert_finetuning_dataset_from_args',
    'convert_finetuning_dataset',
    'convert_text_to_mds',
    'convert_text_to_mds_from_args',
    'convert_delta_to_json_from_args',
    'fetch_DT',
]
