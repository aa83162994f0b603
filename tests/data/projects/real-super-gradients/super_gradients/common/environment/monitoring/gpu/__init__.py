from super_gradients.common.environment.monitoring.gpu.gpu import (
    safe_init_nvidia_management_lib,
    init_nvidia_management_lib,
    count_gpus,
    get_device_memory_usage_percent,
    get_device_memory_allocated_percent,
    get_device_usage_percent,
    get_device_temperature_c,
    get_device_power_usage_w,
    get_device_power_usage_percent,
)

__all__ = [
    "safe_init_nvidia_management_lib",
    "init_nvidia_management_lib",
    "count_gpus",
    "get_device_memory_usage_percent",
    "get_device_memory_allocated_percent",
    "get_device_usage_percent",
    "get_device_temperature_c",
    "get_device_power_usage_w",
    "get_device_power_usage_percent",
]
