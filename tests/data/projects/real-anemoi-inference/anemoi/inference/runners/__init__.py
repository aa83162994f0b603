# (C) Copyright 2024-2026 Anemoi contributors.
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

from anemoi.utils.registry import Registry

from anemoi.inference.config.run import RunConfiguration
from anemoi.inference.runner import Runner

runner_registry = Registry(__name__)


def create_runner(config: RunConfiguration, **kwargs) -> Runner:
    """Create a runner instance based on the given configuration.

    Parameters
    ----------
    config : Configuration
        The configuration for the runner.
    kwargs : dict
        Additional arguments for the runner.

    Returns
    -------
    Any
        The created runner instance.
    """
    return runner_registry.from_config(config.runner, config, **kwargs)
