/* Header to typedef the complex elements in Cupy. Use:
   complex<float> up = (0, 1);
*/

#include <cupy/complex.cuh>
