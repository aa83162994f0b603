#pragma

#include <humming/utils/base.cuh>
#include <humming/utils/enum.cuh>
#include <humming/utils/ptx/barrier.cuh>
#include <humming/utils/ptx/legacy_load.cuh>
#include <humming/utils/ptx/math.cuh>
#include <humming/utils/ptx/shared.cuh>
#include <humming/utils/ptx/tma.cuh>
#include <humming/utils/ptx/warp.cuh>
#include <humming/utils/ptx/wgmma.cuh>

#include <humming/utils/context.cuh>
#include <humming/utils/storage.cuh>
