/*
 * NVML functions that the peer tools (gpustat) call and the test stub leaves out. Compiled, for
 * the side-by-side benchmarks only, as this file, which includes the test stub itself (tests keep
 * the stub exactly as it is). Values follow the same capture; functions the capture has no value
 * for answer NOT_SUPPORTED, as a real driver does for a field a board lacks.
 */
#include "../tests/fakes/nvml_stub.c"

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned int)((stub_device *)device - devices);
    return NVML_SUCCESS;
}

/* An H100 in a server runs no graphics contexts: the capture's processes are compute processes. */
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, void *infos) {
    (void)infos;
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *count = 0;
    return NVML_SUCCESS;
}

/* Fields the capture has no value for: NOT_SUPPORTED, which the peers show as N/A without logging
 * an error (a missing symbol makes nvitop print a traceback into its own screen every refresh). */
#define NOT_SUPPORTED_FN(name)                                                  \
    nvmlReturn_t name(nvmlDevice_t device, void *a, void *b, void *c) {          \
        (void)a;                                                                \
        (void)b;                                                                \
        (void)c;                                                                \
        return valid(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT; \
    }
NOT_SUPPORTED_FN(nvmlDeviceGetComputeMode)
NOT_SUPPORTED_FN(nvmlDeviceGetDecoderUtilization)
NOT_SUPPORTED_FN(nvmlDeviceGetEncoderUtilization)
NOT_SUPPORTED_FN(nvmlDeviceGetDisplayActive)
NOT_SUPPORTED_FN(nvmlDeviceGetDriverModel)
NOT_SUPPORTED_FN(nvmlDeviceGetFanSpeed)
NOT_SUPPORTED_FN(nvmlDeviceGetPerformanceState)
NOT_SUPPORTED_FN(nvmlDeviceGetPersistenceMode)
NOT_SUPPORTED_FN(nvmlDeviceGetPowerManagementLimit)
NOT_SUPPORTED_FN(nvmlDeviceGetProcessUtilization)
NOT_SUPPORTED_FN(nvmlDeviceGetTotalEccErrors)
