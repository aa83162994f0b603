#ifndef __PAT_TYPES__
#define __PAT_TYPES__

enum class EllipticMode {Lut, Exact, Trapezoidal} ;

#endif
