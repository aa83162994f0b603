# File: _exportable.py
# Created Date: Tuesday February 8th 2022
# Author: Steven Atkinson (steven@atkinson.mn)

import abc as _abc
import json as _json
import logging as _logging
from datetime import datetime as _datetime
from enum import Enum as _Enum
from pathlib import Path as _Path
from typing import Any as _Any
from typing import Dict as _Dict
from typing import List as _List
from typing import Optional as _Optional
from typing import Sequence as _Sequence
from typing import Tuple as _Tuple
from typing import Union as _Union

import numpy as _np

from ..hooks import ExportModelDictPostHook as _ExportModelDictPostHook
from ._constants import MODEL_VERSION as _MODEL_VERSION
from .metadata import Date as _Date
from .metadata import UserMetadata as _UserMetadata

logger = _logging.getLogger(__name__)


def _cast_enums(d: _Dict[_Any, _Any]) -> _Dict[_Any, _Any]:
    """
    Casts enum-type keys to their values
    """
    out = {}
    for key, val in d.items():
        if isinstance(val, _Enum):
            val = val.value
        if isinstance(val, dict):
            val = _cast_enums(val)
        out[key] = val
    return out


_JsonDumpable = (
    dict[str, "_JsonDumpable"] | list["_JsonDumpable"] | str | int | float | bool | None
)
_ExportModelDict = _Dict[str, _JsonDumpable]



class Exportable(_abc.ABC):
    """
    Interface for my custon export format for use in the plugin.
    """

    FILE_EXTENSION = ".nam"

    def __init__(self):
        self.export_model_dict_post_hooks = []

    @property
    def export_model_dict_post_hooks(self) -> _List[_ExportModelDictPostHook]:
        """
        Hooks run after the model export dictionary has been assembled.

        Hooks are ExportModelDictPostHook instances. Each hook's .apply() method returns
        the model dictionary that should be passed to the next hook and written to disk.
        """
        if "_export_model_dict_post_hooks" not in self.__dict__:
            self._export_model_dict_post_hooks = []
        return self._export_model_dict_post_hooks

    @export_model_dict_post_hooks.setter
    def export_model_dict_post_hooks(
        self, hooks: _Sequence[_ExportModelDictPostHook]
    ) -> None:
        self._export_model_dict_post_hooks = list(hooks)

    def export(
        self,
        outdir: _Path,
        include_snapshot: bool = False,
        basename: str = "model",
        user_metadata: _Optional[_UserMetadata] = None,
        other_metadata: _Optional[dict] = None,
    ):
        """
        Interface for exporting.
        You should create at least a `config.json` containing the two fields:
        * "version" (str)
        * "architecture" (str)
        * "config": (dict w/ other necessary data like tensor shapes etc)

        :param outdir: Assumed to exist. Can be edited inside at will.
        :param include_snapshots: If True, outputs `input.npy` and `output.npy`
            Containing an example input/output pair that the model creates. This
            Can be used to debug e.g. the implementation of the model in the
            plugin.
        """
        model_dict = self._get_export_dict()
        model_dict["metadata"].update(
            {} if user_metadata is None else _cast_enums(user_metadata.model_dump())
        )
        if other_metadata is not None:
            overwritten_keys = []
            for key in other_metadata:
                if key in model_dict["metadata"]:
                    overwritten_keys.append(key)
            if overwritten_keys:
                logger.warning(
                    "other_metadata provided keys that will overwrite existing keys!\n "
                    + "\n ".join(overwritten_keys)
                )
            model_dict["metadata"].update(_cast_enums(other_metadata))
        model_dict = self._apply_export_model_dict_post_hooks(model_dict=model_dict)

        training = self.training
        self.eval()
        with open(_Path(outdir, f"{basename}{self.FILE_EXTENSION}"), "w") as fp:
            _json.dump(model_dict, fp)
        if include_snapshot:
            x, y = self._export_input_output()
            x_path = _Path(outdir, "test_inputs.npy")
            y_path = _Path(outdir, "test_outputs.npy")
            logger.debug(f"Saving snapshot input to {x_path}")
            _np.save(x_path, x)
            logger.debug(f"Saving snapshot output to {y_path}")
            _np.save(y_path, y)

        # And resume training state
        self.train(training)

    def export_onnx(self, filename: _Path):
        """
        Export model in format for ONNX Runtime
        """
        raise NotImplementedError(
            "Exporting to ONNX is not supported for models of type "
            f"{self.__class__.__name__}"
        )

    def import_weights(self, weights: _Sequence[float]):
        """
        Inverse of `._export_weights()
        """
        raise NotImplementedError(
            f"Importing weights for models of type {self.__class__.__name__} isn't "
            "implemented yet."
        )

    @_abc.abstractmethod
    def _export_config(self) -> _JsonDumpable:
        """
        Creates the JSON of the model's archtecture hyperparameters (number of layers,
        number of units, etc)

        :return: a JSON serializable object
        """
        pass

    @_abc.abstractmethod
    def _export_input_output(self) -> _Tuple[_np.ndarray, _np.ndarray]:
        """
        Create an input and corresponding output signal to verify its behavior.

        They should be the same length, but the start of the output might have transient
        effects. Up to you to interpret.
        """
        pass

    @_abc.abstractmethod
    def _export_weights(self) -> _np.ndarray:
        """
        Flatten the weights out to a 1D array
        """
        pass

    def _apply_export_model_dict_post_hooks(
        self, model_dict: _ExportModelDict
    ) -> _ExportModelDict:
        for hook in self.export_model_dict_post_hooks:
            model_dict = hook.apply(model_dict)
        return model_dict

    def _get_export_architecture(self) -> str:
        return self.__class__.__name__

    def _get_export_dict(self) -> _ExportModelDict:
        return {
            "version": _MODEL_VERSION,
            "metadata": self._get_non_user_metadata(),
            "architecture": self._get_export_architecture(),
            "config": self._export_config(),
            "weights": self._export_weights().tolist(),
        }

    def _get_non_user_metadata(self) -> _Dict[str, _JsonDumpable]:
        """
        Get any metadata that's non-user-provided (date, loudness, gain)
        """
        t = _datetime.now()
        return {
            "date": _Date(
                year=t.year,
                month=t.month,
                day=t.day,
                hour=t.hour,
                minute=t.minute,
                second=t.second,
            ).model_dump()
        }
