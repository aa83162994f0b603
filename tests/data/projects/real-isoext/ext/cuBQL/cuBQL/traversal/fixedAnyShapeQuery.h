// SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
// SPDX-License-Identifier: Apache-2.0

/*! \file fixedAnyShape.h common stuff for any fixed-shape query
    (fixed radius query, fixed box query, fixed ray query, etc */

#pragma once

#include "cuBQL/bvh.h"

#define CUBQL_TERMINATE_TRAVERSAL 1
#define CUBQL_CONTINUE_TRAVERSAL  0
  
namespace cuBQL {
}

