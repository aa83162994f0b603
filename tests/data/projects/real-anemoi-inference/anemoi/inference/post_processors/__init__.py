# (C) Copyright 2025-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.
#


from anemoi.utils.registry import Registry

from anemoi.inference.context import Context
from anemoi.inference.metadata import Metadata
from anemoi.inference.processor import Processor
from anemoi.inference.types import ProcessorConfig

post_processor_registry: Registry[Processor] = Registry(__name__)


def create_post_processor(context: Context, config: ProcessorConfig, metadata: Metadata, **kwargs) -> Processor:
    """Create a post-processor.

    Parameters
    ----------
    context : Context
        The context for the post-processor.
    config : ProcessorConfig
        The configuration for the post-processor.
    metadata : Metadata
        Metadata corresponding to the dataset this post-processor is handling.
    **kwargs : Any
        Additional keyword arguments to pass to the post-processor constructor.

    Returns
    -------
    Processor
        The created post-processor.
    """
    return post_processor_registry.from_config(config, context, metadata, **kwargs)
