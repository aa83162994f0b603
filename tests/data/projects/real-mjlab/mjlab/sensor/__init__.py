from mjlab.sensor.builtin_sensor import BuiltinSensor as BuiltinSensor
from mjlab.sensor.builtin_sensor import BuiltinSensorCfg as BuiltinSensorCfg
from mjlab.sensor.builtin_sensor import ObjRef as ObjRef
from mjlab.sensor.camera_sensor import CameraSensor as CameraSensor
from mjlab.sensor.camera_sensor import CameraSensorCfg as CameraSensorCfg
from mjlab.sensor.camera_sensor import CameraSensorData as CameraSensorData
from mjlab.sensor.contact_sensor import ContactData as ContactData
from mjlab.sensor.contact_sensor import ContactMatch as ContactMatch
from mjlab.sensor.contact_sensor import ContactSensor as ContactSensor
from mjlab.sensor.contact_sensor import ContactSensorCfg as ContactSensorCfg
from mjlab.sensor.raycast_sensor import GridPatternCfg as GridPatternCfg
from mjlab.sensor.raycast_sensor import (
  PinholeCameraPatternCfg as PinholeCameraPatternCfg,
)
from mjlab.sensor.raycast_sensor import RayCastData as RayCastData
from mjlab.sensor.raycast_sensor import RayCastSensor as RayCastSensor
from mjlab.sensor.raycast_sensor import RayCastSensorCfg as RayCastSensorCfg
from mjlab.sensor.raycast_sensor import RingPatternCfg as RingPatternCfg
from mjlab.sensor.sensor import Sensor as Sensor
from mjlab.sensor.sensor import SensorCfg as SensorCfg
from mjlab.sensor.sensor_context import SensorContext as SensorContext
from mjlab.sensor.terrain_height_sensor import TerrainHeightData as TerrainHeightData
from mjlab.sensor.terrain_height_sensor import (
  TerrainHeightSensor as TerrainHeightSensor,
)
from mjlab.sensor.terrain_height_sensor import (
  TerrainHeightSensorCfg as TerrainHeightSensorCfg,
)
