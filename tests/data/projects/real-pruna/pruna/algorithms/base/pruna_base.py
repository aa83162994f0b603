# Copyright 2025 - Pruna AI GmbH. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import Any, Dict, Iterable

from transformers import Pipeline

from pruna.algorithms.base.tags import AlgorithmTag
from pruna.config.smash_config import SUPPORTED_DEVICES, SmashConfig, SmashConfigPrefixWrapper
from pruna.config.smash_space import SMASH_SPACE
from pruna.engine.save import (
    SAVE_BEFORE_SMASH_CACHE_DIR,
    SAVE_FUNCTIONS,
    save_pruna_model,
)
from pruna.engine.utils import get_fn_name
from pruna.logging.logger import pruna_logger


class PrunaAlgorithmBase(ABC):
    """Base class for Pruna algorithms."""

    def __init__(self) -> None:
        self.hyperparameters = self.get_hyperparameters()
        if self.algorithm_name not in SMASH_SPACE.get_all_algorithms():
            SMASH_SPACE.register_algorithm(self.algorithm_name, self.hyperparameters)
        assert all(device in SUPPORTED_DEVICES for device in self.runs_on)

        # Initialize compatibility lists from class-level defaults
        self._compatible_before = list(type(self).__dict__.get("compatible_before", []))
        self._compatible_after = list(type(self).__dict__.get("compatible_after", []))
        self._disjointly_compatible_before = list(type(self).__dict__.get("disjointly_compatible_before", []))
        self._disjointly_compatible_after = list(type(self).__dict__.get("disjointly_compatible_after", []))

    def __init_subclass__(cls, **kwargs):
        """Intercept the instantiation of subclasses of the PrunaAlgorithmBase class."""
        super().__init_subclass__(**kwargs)

        # skip if subclass stayed abstract
        impl = cls.__dict__.get("import_algorithm_packages")
        if impl is None:
            return

        # Skip if we already wrapped it (multiple inheritance chains, reloads, etc.)
        if getattr(impl, "__wrapped__", None) is not None:
            return

        # Replace the function with the wrapped version
        cls.import_algorithm_packages = wrap_handle_imports(impl)

    def compatible_devices(self) -> list[str]:
        """
        Return the compatible devices for the algorithm.

        Returns
        -------
        list[str]
            The compatible devices for the algorithm.
        """
        return self.runs_on

    @property
    @abstractmethod
    def algorithm_name(self) -> str:
        """Subclasses need to provide a name for the algorithm."""
        pass

    @property
    def required_install(self) -> str | None:
        """Subclasses need to provide extra requirements for the algorithm."""
        return None

    @property
    @abstractmethod
    def references(self) -> None | dict[str, str]:
        """References likes papers or GitHub repository for the algorithm."""
        pass

    @property
    @abstractmethod
    def runs_on(self) -> list[str]:
        """Subclasses need to provide a list of devices the algorithm can run on."""
        pass

    @property
    @abstractmethod
    def save_fn(self) -> SAVE_FUNCTIONS | None:
        """Subclasses need to provide a save_fn for the algorithm."""
        pass

    @property
    @abstractmethod
    def tokenizer_required(self) -> bool:
        """Subclasses need to request a tokenizer for the algorithm."""
        pass

    @property
    @abstractmethod
    def processor_required(self) -> bool:
        """Subclasses need to request a processor for the algorithm."""
        pass

    @property
    @abstractmethod
    def dataset_required(self) -> bool:
        """Subclasses need to request a dataset for the algorithm."""
        pass

    @property
    @abstractmethod
    def group_tags(self) -> list[AlgorithmTag]:
        """Subclasses need to provide a list of group tags for the algorithm."""
        pass

    @property
    def compatible_before(self) -> Iterable[str | AlgorithmTag]:
        """
        Get algorithms that can be executed before the current algorithm.

        Returns
        -------
        Iterable[str | AlgorithmTag]
            Iterable of algorithm names that can be executed before this algorithm.
        """
        return self._compatible_before

    @compatible_before.setter
    def compatible_before(self, value: Iterable[str | AlgorithmTag]) -> None:
        """
        Set algorithms that can be executed before the current algorithm.

        Parameters
        ----------
        value : Iterable[str]
            Iterable of algorithm names that can be executed before this algorithm.
        """
        self._compatible_before = list(value)

    @property
    def compatible_after(self) -> Iterable[str | AlgorithmTag]:
        """
        Get algorithms that can be executed after the current algorithm.

        Returns
        -------
        Iterable[str | AlgorithmTag]
            Iterable of algorithm names that can be executed after this algorithm.
        """
        return self._compatible_after

    @compatible_after.setter
    def compatible_after(self, value: Iterable[str | AlgorithmTag]) -> None:
        """
        Set algorithms that can be executed after the current algorithm.

        Parameters
        ----------
        value : Iterable[str]
            Iterable of algorithm names that can be executed after this algorithm.
        """
        self._compatible_after = list(value)

    @property
    def disjointly_compatible_before(self) -> Iterable[str | AlgorithmTag]:
        """
        Get algorithms that can run before this algorithm on disjoint submodules.

        Defining a non-empty list of algorithms that can run before this algorithm on disjoint submodules requires the
        algorithm to have a 'target_modules' hyperparameter to specify which parts of the model it should be applied to.

        Returns
        -------
        Iterable[str | AlgorithmTag]
            Iterable of algorithm names or tags.
        """
        return self._disjointly_compatible_before

    @disjointly_compatible_before.setter
    def disjointly_compatible_before(self, value: Iterable[str | AlgorithmTag]) -> None:
        """
        Set algorithms that can run before this algorithm on disjoint submodules.

        Parameters
        ----------
        value : Iterable[str | AlgorithmTag]
            Iterable of algorithm names or tags.
        """
        self._disjointly_compatible_before = list(value)

    @property
    def disjointly_compatible_after(self) -> Iterable[str | AlgorithmTag]:
        """
        Get algorithms that can run after this algorithm on disjoint submodules.

        Defining a non-empty list of algorithms that can run after this algorithm on disjoint submodules requires the
        algorithm to have a 'target_modules' hyperparameter to specify which parts of the model it should be applied to.

        Returns
        -------
        Iterable[str | AlgorithmTag]
            Iterable of algorithm names or tags.
        """
        return self._disjointly_compatible_after

    @disjointly_compatible_after.setter
    def disjointly_compatible_after(self, value: Iterable[str | AlgorithmTag]) -> None:
        """
        Set algorithms that can run after this algorithm on disjoint submodules.

        Parameters
        ----------
        value : Iterable[str | AlgorithmTag]
            Iterable of algorithm names or tags.
        """
        self._disjointly_compatible_after = list(value)

    @abstractmethod
    def model_check_fn(self, model: Any) -> bool:
        """
        Provide a model check function for the algorithm.

        Parameters
        ----------
        model : Any
            The model to check.

        Returns
        -------
        bool
            True if the model is supported, False otherwise.
        """
        pass

    def import_algorithm_packages(self) -> Dict[str, Any]:
        """
        Provide a algorithm packages for the algorithm.

        Returns
        -------
        Dict[str, Any]
            The algorithm packages.
        """
        return dict()

    def get_hyperparameters(self) -> list:
        """
        Configure all algorithm-specific hyperparameters with ConfigSpace.

        Returns
        -------
        list
            The hyperparameters for the algorithm.
        """
        return []

    def get_model_dependent_hyperparameter_defaults(
        self, model: Any, smash_config: SmashConfigPrefixWrapper
    ) -> dict[str, Any]:
        """
        Provide model-dependent default values for hyperparameters declared in `get_hyperparameters`.

        This method is called at apply-time for hyperparameter whose default value depends on the model architecture.
        Subclasses should inspect the model architecture and return sensible defaults. The most common use case
        is returning a `target_modules` that specifies which parts of the model the algorithm should target.

        Parameters
        ----------
        model : Any
            The model to derive defaults from (used to inspect architecture, component names, etc.).
        smash_config : SmashConfigPrefixWrapper
            The algorithm-prefixed configuration. Can be used to read other already-set hyperparameters
            that may influence the choice of defaults.

        Returns
        -------
        dict[str, Any]
            A dictionary mapping hyperparameter names (without the algorithm prefix) to
            their default values, e.g. `{"target_modules": {"include": ["transformer.*"], "exclude": []}}`.
            Returns an empty dict when the algorithm has no model-dependent defaults.
        """
        return {}

    def pre_smash_hook(self, model: Any, smash_config: SmashConfig) -> None:
        """
        Perform any necessary actions before the smashing process begins.

        This method is called before any algorithm is applied to the model. It allows algorithms
        to e.g. perform preparatory steps that need to happen before the actual model adaptation.

        Parameters
        ----------
        model : Any
            The model to be smashed.
        smash_config : SmashConfig
            The SmashConfig object containing the algorithm settings.
        """
        prefix = self.algorithm_name + "_"
        wrapped_config = SmashConfigPrefixWrapper(smash_config, prefix)
        self._pre_smash_hook(model, wrapped_config)

    def _pre_smash_hook(self, model: Any, smash_config: SmashConfigPrefixWrapper) -> None:
        """
        Function to be overridden by an algorithm to perform any pre-smash actions.

        Wrapped by the pre_smash_hook method to handle smash_config prefix.

        Parameters
        ----------
        model : Any
            The model to be smashed.
        smash_config : SmashConfig
            The SmashConfig object containing the algorithm settings.
        """
        pass

    @abstractmethod
    def _apply(self, model: Any, smash_config: SmashConfigPrefixWrapper) -> Any:
        """Apply the algorithm to the model."""
        pass

    def _apply_to_model_within_transformers_pipeline(
        self, pipeline: Pipeline, smash_config: SmashConfigPrefixWrapper
    ) -> Pipeline:
        """Apply the algorithm to the model."""
        pipeline.model = self._apply(pipeline.model, smash_config)
        return pipeline

    def apply(self, model: Any, smash_config: SmashConfig) -> Any:
        """
        Wrap the apply algorithm for e.g. saving callbacks.

        Parameters
        ----------
        model : Any
            The model to apply the algorithm to.
        smash_config : SmashConfig
            The SmashConfig object containing the save and load functions.

        Returns
        -------
        Any
            The model after the algorithm has been applied.
        """
        if self.save_fn == SAVE_FUNCTIONS.save_before_apply and smash_config._prepare_saving:
            save_dir = smash_config.cache_dir / SAVE_BEFORE_SMASH_CACHE_DIR
            save_pruna_model(model, save_dir, smash_config)

        # save algorithms to reapply after loading
        reapply_fns = [SAVE_FUNCTIONS.save_before_apply, SAVE_FUNCTIONS.reapply]
        smash_config.reapply_after_load[self.algorithm_name] = self.save_fn in reapply_fns

        # if the registered save function is None, the original saving function remains
        if self.save_fn is not None and self.save_fn != SAVE_FUNCTIONS.reapply:
            fn_name = get_fn_name(self.save_fn)
            smash_config.save_fns.append(fn_name)

        prefix = self.algorithm_name + "_"
        wrapped_config = SmashConfigPrefixWrapper(smash_config, prefix)
        return self._apply(model, wrapped_config)

    def get_compatible_algorithms(self) -> list[str]:
        """
        Get algorithms compatible with the current algorithm.

        Returns
        -------
        list[str]
            The compatible algorithms.
        """
        return list(
            set(
                _expand_tags_into_algorithm_names(self.compatible_before)
                + _expand_tags_into_algorithm_names(self.compatible_after)
            )
        )

    def get_disjointly_compatible_algorithms(self) -> list[str]:
        """
        Get algorithms disjointly compatible with the current algorithm.

        Returns
        -------
        list[str]
            The disjointly compatible algorithms.
        """
        return list(
            set(
                _expand_tags_into_algorithm_names(self.disjointly_compatible_before)
                + _expand_tags_into_algorithm_names(self.disjointly_compatible_after)
            )
        )

    def get_algorithms_to_run_before(self) -> list[str]:
        """
        Get algorithms required to run / be executed before the current algorithm.

        Returns
        -------
        list[str]
            The required algorithms.
        """
        return _expand_tags_into_algorithm_names(self.compatible_before)

    def get_algorithms_to_run_after(self) -> list[str]:
        """
        Get algorithms required to run / be executed after the current algorithm.

        Returns
        -------
        list[str]
            The required algorithms.
        """
        return _expand_tags_into_algorithm_names(self.compatible_after)

    def get_algorithms_to_run_before_disjointly(self) -> list[str]:
        """
        Get algorithms that can run before this algorithm on disjoint submodules.

        Returns
        -------
        list[str]
            The required algorithms.
        """
        return _expand_tags_into_algorithm_names(self.disjointly_compatible_before)

    def get_algorithms_to_run_after_disjointly(self) -> list[str]:
        """
        Get algorithms that can run after this algorithm on disjoint submodules.

        Returns
        -------
        list[str]
            The required algorithms.
        """
        return _expand_tags_into_algorithm_names(self.disjointly_compatible_after)


def wrap_handle_imports(func):
    """
    Wrap the import_algorithm_packages method to handle import errors in a unified and user-friendly way.

    Parameters
    ----------
    func : Callable
        The function to wrap.

    Returns
    -------
    Callable
        The wrapped function.
    """

    @functools.wraps(func)
    def _wrapper(self, *args, **kwargs):
        try:
            result = func(self, *args, **kwargs)
            return result
        except Exception as e:
            if self.required_install is not None:
                pruna_logger.debug(str(e))
                exception_message = (
                    f"Could not import necessary packages for {self.algorithm_name}. ",
                    f"To use {self.algorithm_name}, follow the installation instructions: {self.required_install}.",
                )
            else:
                exception_message = str(e)
                pruna_logger.error(
                    (
                        f"Could not import necessary packages for {self.algorithm_name}.",
                        "Please verify your pruna installation.",
                    )
                )
        raise ImportError(exception_message)

    _wrapper.__wrapped__ = func  # mark the original (helps avoid double-wrapping)
    return _wrapper


def _expand_tags_into_algorithm_names(items: Iterable[str | AlgorithmTag] | None) -> list[str]:
    """Expand algorithms/tags -> concrete algorithm names."""
    if not items:
        return []

    # avoid circular import
    from pruna.algorithms import AlgorithmRegistry

    out: list[str] = []
    for it in items:
        if isinstance(it, str):
            out.append(it)
        else:
            out.extend(AlgorithmRegistry.get_algorithms_by_tag(it))
    return out
