#include "macros.h"
#include <torch/torch.h>
