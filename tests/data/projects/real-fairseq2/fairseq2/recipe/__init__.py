# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.recipe.base import EvalRecipe as EvalRecipe
from fairseq2.recipe.base import GenerationRecipe as GenerationRecipe
from fairseq2.recipe.base import Recipe as Recipe
from fairseq2.recipe.base import RecipeContext as RecipeContext
from fairseq2.recipe.base import TrainRecipe as TrainRecipe
from fairseq2.recipe.cli import ExceptionHandler as ExceptionHandler
from fairseq2.recipe.cli import eval_main as eval_main
from fairseq2.recipe.cli import generate_main as generate_main
from fairseq2.recipe.cli import main as main
from fairseq2.recipe.cli import register_cli_error as register_cli_error
from fairseq2.recipe.cli import train_main as train_main
from fairseq2.recipe.dataset import RecipeDataset as RecipeDataset
from fairseq2.recipe.model import RecipeModel as RecipeModel
from fairseq2.recipe.run import evaluate as evaluate
from fairseq2.recipe.run import generate as generate
from fairseq2.recipe.run import run as run
from fairseq2.recipe.run import train as train
from fairseq2.recipe.tokenizer import RecipeTokenizer as RecipeTokenizer

# isort: split

# TODO: Deprecated, will be removed in v0.14.
from fairseq2.evaluator import Evaluator as Evaluator
from fairseq2.evaluator import EvalUnit as EvalUnit
from fairseq2.generator import Generator as Generator
from fairseq2.generator import GeneratorUnit as GeneratorUnit
from fairseq2.task import Task as Task
from fairseq2.task import TaskStopException as TaskStopException
from fairseq2.trainer import Trainer as Trainer
from fairseq2.trainer import TrainUnit as TrainUnit
from fairseq2.validator import Validator as Validator
