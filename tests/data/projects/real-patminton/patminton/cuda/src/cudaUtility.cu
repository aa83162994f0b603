#include "cudaUtility.h"
#include <stdio.h>

void HandleError( cudaError_t err, const char *file, int line ) {
	if (err != cudaSuccess) {
		printf( "%s in %s at line %d\n", cudaGetErrorString( err ),
		file, line );
		exit( EXIT_FAILURE );
	}
}

