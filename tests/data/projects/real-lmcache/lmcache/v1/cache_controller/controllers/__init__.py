# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.cache_controller.controllers.kv_controller import KVController
from lmcache.v1.cache_controller.controllers.registration_controller import (  # noqa: E501
    RegistrationController,
)

__all__ = [
    "KVController",
    "RegistrationController",
]
