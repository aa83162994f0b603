# Copyright 2025 Akram Alsubari
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

"""
Utility modules for Dynamic Transformers.

This module provides utility functions and classes for caching, file management,
and other helper functionalities.

Author: Akram Alsubari
Email: akram.alsubari@outlook.com / akram.alsubari87@gmail.com
"""
__version__ = "0.1.0"
__author__ = "Akram Alsubari"
__email__ = "akram.alsubari@outlook.com"
__license__ = "Apache 2.0"

from dytr.utils.caching import CacheManager, get_cache_manager
from dytr.utils.logging import get_logger, set_log_level,disable_logging
__all__ = ["CacheManager", "get_cache_manager","get_logger","set_log_level","disable_logging"]
