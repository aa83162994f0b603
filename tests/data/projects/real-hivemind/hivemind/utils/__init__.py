from hivemind.utils.asyncio import (
    as_aiter,
    amap_in_executor,
    switch_to_uvloop,
    enter_asynchronously,
)
from hivemind.utils.logging import get_logger
from hivemind.utils.mpfuture import MPFuture
from hivemind.utils.nested import nested_flatten, nested_pack, nested_map
from hivemind.utils.performance_ema import PerformanceEMA
from hivemind.utils.serializer import MSGPackSerializer, SerializerBase
from hivemind.utils.tensor_descr import TensorDescriptor
from hivemind.utils.timed_storage import (
    DHTExpiration,
    ValueWithExpiration,
    get_dht_time,
    MAX_DHT_TIME_DISCREPANCY_SECONDS,
    TimedStorage,
)
