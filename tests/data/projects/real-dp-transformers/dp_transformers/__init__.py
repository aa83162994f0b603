# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .arguments import PrivacyArguments, TrainingArguments  # noqa: F401
from .dp_utils import DPCallback, DataCollatorForPrivateCausalLanguageModeling  # noqa: F401
from .sampler import PoissonAuthorSampler, ShuffledAuthorSampler  # noqa: F401
