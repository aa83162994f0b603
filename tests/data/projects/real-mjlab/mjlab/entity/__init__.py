from mjlab.entity.data import EntityData as EntityData
from mjlab.entity.entity import Entity as Entity
from mjlab.entity.entity import EntityArticulationInfoCfg as EntityArticulationInfoCfg
from mjlab.entity.entity import EntityCfg as EntityCfg
from mjlab.entity.entity import EntityIndexing as EntityIndexing
from mjlab.entity.variants import VariantEntityCfg as VariantEntityCfg
from mjlab.entity.variants import VariantMetadata as VariantMetadata
