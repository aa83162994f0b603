import grouped_gemm.ops
import grouped_gemm.backend
