// optimized_transducer/python/csrc/optimized_transducer.h
//
// Copyright (c)  2021  Xiaomi Corporation (authors: Fangjun Kuang)

#ifndef OPTIMIZED_TRANSDUCER_PYTHON_CSRC_OPTIMIZED_TRANSDUCER_H_
#define OPTIMIZED_TRANSDUCER_PYTHON_CSRC_OPTIMIZED_TRANSDUCER_H_

#include "pybind11/pybind11.h"

namespace py = pybind11;

#endif  // OPTIMIZED_TRANSDUCER_PYTHON_CSRC_OPTIMIZED_TRANSDUCER_H_
