#
# Copyright (c) 2023 salesforce.com, inc.
# All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# For full license text, see the LICENSE file in the repo root or https://opensource.org/licenses/BSD-3-Clause
#
from merlion.utils.misc import dynamic_import
from merlion.utils.resample import to_pd_datetime, to_timestamp
from merlion.utils.time_series import UnivariateTimeSeries, TimeSeries
