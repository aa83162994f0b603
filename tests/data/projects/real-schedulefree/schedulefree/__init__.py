# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
# 
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
from .radam_schedulefree_closure import RAdamScheduleFreeClosure
from .radam_schedulefree import RAdamScheduleFree
from .adamw_schedulefree_closure import AdamWScheduleFreeClosure
from .adamw_schedulefree import AdamWScheduleFree
from .adamw_schedulefree_reference import AdamWScheduleFreeReference
from .adamw_schedulefree_paper import AdamWScheduleFreePaper
from .sgd_schedulefree_closure import SGDScheduleFreeClosure
from .sgd_schedulefree import SGDScheduleFree
from .sgd_schedulefree_reference import SGDScheduleFreeReference
from .wrap_schedulefree import ScheduleFreeWrapper
from .wrap_schedulefree_reference import ScheduleFreeWrapperReference