from .model import Dict2Class,Beam,Derived,Nlo,NewClass,propagate,propagate_t,gain

#__all__ = ["Dict2Class"]