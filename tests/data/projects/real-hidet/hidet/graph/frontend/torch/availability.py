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
import sys
from importlib.util import find_spec
from importlib.metadata import version
from packaging.version import parse


def available():
    """
    Check if torch is installed.

    Returns
    -------
    ret: bool
        True if torch is installed.
    """
    spec = find_spec('torch')
    return spec is not None


def dynamo_available():
    """
    Check if torch is installed and torch dynamo is available.

    Returns
    -------
    ret: bool
        True if torch is installed and torch dynamo is available.
    """
    return available() and parse(version('torch')) >= parse('2.0.0.dev')


def imported():
    """
    Check if torch is imported.

    Returns
    -------
    ret: bool
        True if torch is imported.
    """
    return 'torch' in sys.modules
