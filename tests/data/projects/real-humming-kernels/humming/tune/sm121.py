from humming.device import current_device
from humming.tune.sm120 import Sm120Heuristics


class Sm121Heuristics(Sm120Heuristics):
    sm_version: int = 121

    @classmethod
    def should_use_pdl_for_input(cls, layer_config, shape_m: int) -> bool:
        return True

    @classmethod
    def _tune_mxmma_dense(cls, layer_config, config, shape_m, is_mxmma, num_blocks_nk) -> None:
        return

    @classmethod
    def _use_m_tile(cls, layer_config, config, gemm_type, block_m: int, shape_m: int) -> None:
        num_blocks_m = cls.estimate_num_blocks_m(layer_config, shape_m, block_m)
        num_blocks_n = layer_config.shape_n // config["block_shape"][1]
        if num_blocks_m * num_blocks_n >= current_device.sm_count * 2:
            block_m = min(block_m, config["block_shape"][0])
        config["use_warp_spec"] = False
        super()._use_m_tile(layer_config, config, gemm_type, block_m, shape_m)

    @classmethod
    def _should_use_stream_k(cls, layer_config, config, shape_m: int) -> bool:
        if not config.get("use_stream_k", False):
            return False

        block_m, block_n, _ = config["block_shape"]
        num_n_blocks = (layer_config.shape_n + block_n - 1) // block_n
        num_m_blocks = (shape_m + block_m - 1) // block_m
        num_output_tiles = num_n_blocks * num_m_blocks
        num_sms = current_device.sm_count
        if num_output_tiles * 3 < num_sms or num_output_tiles >= num_sms:
            return True
        if block_m <= 16 and num_output_tiles * 3 >= num_sms * 2:
            return False

        candidate = config | {"use_stream_k": False}
        super()._rebalance_dense_warps(layer_config, candidate, shape_m)
        return all(candidate[key] == config[key] for key in ("block_shape", "warp_shape"))

    @classmethod
    def _tune_small_m_dense(cls, layer_config, config, shape_m: int, is_wna16: bool) -> None:
        block_m, block_n, block_k = config["block_shape"]
        warp_m, warp_n, warp_k = config["warp_shape"]
        if shape_m > block_m or block_m > 32:
            return

        num_a_bits = layer_config.a_dtype.num_bits
        num_b_bits = layer_config.b_dtype.num_bits
        use_tma = config.get("use_tma", False)
        use_stream_k = config.get("use_stream_k", False)
        shape_k = layer_config.shape_k
        if num_a_bits >= 8 and use_tma and block_k >= warp_k * 2:
            config["block_shape"] = (block_m, block_n, block_k // 2)
            config["use_warp_spec"] &= cls._has_complete_warpgroups(config)
            if is_wna16:
                cls._use_tma_b_only(config)
        elif num_b_bits <= 4 and not use_stream_k and block_k == 128 and shape_k % (block_k * 2) == 0:
            if is_wna16:
                config["block_shape"] = (block_m, block_n, block_k * 2)
                config["warp_shape"] = (warp_m, warp_n, 64)
                config["num_stages"] = 3
