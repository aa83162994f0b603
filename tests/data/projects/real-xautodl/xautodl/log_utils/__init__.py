##################################################
# Copyright (c) Xuanyi Dong [GitHub D-X-Y], 2019 #
##################################################
# every package does not rely on pytorch or tensorflow
# I tried to list all dependency here: os, sys, time, numpy, (possibly) matplotlib
##################################################
from .logger import Logger, PrintLogger
from .meter import AverageMeter
from .time_utils import (
    time_for_file,
    time_string,
    time_string_short,
    time_print,
    convert_secs2time,
)
from .pickle_wrap import pickle_save, pickle_load
