#pragma once

#include <kermac_internal_common.cuh>
#include <p_norm_gradient.cuh>
#include <build_a_kernel.cuh>
