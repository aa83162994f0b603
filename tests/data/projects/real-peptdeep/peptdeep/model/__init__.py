from peptdeep.model import (
    model_interface,
    base,
    building_block,
    ccs,
    rt,
    ms2,
    generic_property_prediction,
    model_shop,
    featurize,
)
