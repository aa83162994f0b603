# Copyright (C) 2020. Huawei Technologies Co., Ltd. All rights reserved.

# This program is free software; you can redistribute it and/or modify it under
# the terms of the MIT license.

# This program is distributed in the hope that it will be useful, but WITHOUT ANY
# WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A
# PARTICULAR PURPOSE. See the MIT License for more details.

from . import design_space
from . import param
from . import bool_param
from . import categorical_param
from . import integer_param
from . import numeric_param
from . import pow_param
from . import pow_integer_param
from . import step_int
from .design_space import DesignSpace
