#include <immintrin.h>

using float2 = __m64;
using float4 = __m128;
using float8 = __m256;
