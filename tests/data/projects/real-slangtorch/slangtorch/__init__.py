from .slangtorch import (
    loadModule,
    clearPersistentShaderCache,
    clearSessionShaderCache,
    clearShaderCaches)