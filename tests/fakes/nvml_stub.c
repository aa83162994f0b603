/*
 * A stub libnvidia-ml.so.1 describing two NVIDIA H100 80GB HBM3 GPUs, so the REAL nvidia-ml-py
 * bindings (ctypes, symbol names with their _v2/_v3 suffixes, struct layouts) run end to end on
 * a machine without a GPU. A pytest fixture compiles it with gcc into a temporary folder and
 * points LD_LIBRARY_PATH there.
 *
 * Values come from tests/data/nvidia/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt
 * (driver 590.48.01, CUDA 13.1): GPU 0 is the capture's idle state, GPU 1 its load state. The
 * capture has one GPU, so GPU 1's PCI address and UUID are the only values not in it (see
 * tests/data/SOURCES.md).
 *
 * Only some NVML functions are exported. nvidia-ml-py raises NVMLError_FunctionNotFound for
 * every other one, which is exactly how an older driver behaves; the probe must record those
 * fields as absent.
 */
#include <string.h>

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
};

#define MIB (1024ULL * 1024ULL)
#define NVML_MEMORY_V2 0x02000028u /* nvidia-ml-py's nvmlMemory_v2 */
#define NO_INSTANCE 0xFFFFFFFFu    /* "N/A" GPU/compute instance of a non-MIG process */

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
    unsigned int pid;
    const char *name;
    unsigned long long used_mib;
} stub_process;

typedef struct nvmlDevice_st {
    const char *name, *uuid, *serial, *bus_id, *vbios, *board_part;
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    int cc_major, cc_minor;
    unsigned int architecture;
    unsigned long long total_mib, reserved_mib, used_mib, free_mib;
    unsigned int power_limit_mw, power_draw_mw, temperature_c, util_gpu, util_memory;
    unsigned int clock_graphics, clock_sm, clock_mem, max_graphics, max_sm, max_mem;
    unsigned int process_count;
    stub_process processes[3];
} stub_device;

typedef struct nvmlDevice_st *nvmlDevice_t;

static stub_device devices[2] = {
    {
        /* idle :: query (-q) */
        "NVIDIA H100 80GB HBM3", "GPU-00000000-0000-0000-0000-000000000000", "0000000000000",
        "00000000:00:09.0", "96.00.A5.00.01", "692-2G520-0200-000",
        0x0, 0x00, 0x09, 0x233010DE, 0x16C110DE,
        9, 0, /* compute_cap 9.0 (query-gpu) */
        9,    /* NVML_DEVICE_ARCH_HOPPER: "Product Architecture : Hopper" */
        81559, 479, 0, 81081,
        700000, 69850, 41, 0, 0,
        345, 345, 2619, 1980, 1980, 2619,
        0, {{0}},
    },
    {
        /* load :: query (-q), with the load :: query-compute-apps processes */
        "NVIDIA H100 80GB HBM3", "GPU-00000000-0000-0000-0000-000000000001", "0000000000000",
        "00000000:00:0A.0", "96.00.A5.00.01", "692-2G520-0200-000",
        0x0, 0x00, 0x0A, 0x233010DE, 0x16C110DE,
        9, 0,
        9,
        81559, 479, 19818, 61263,
        700000, 629450, 59, 100, 11,
        1980, 1980, 2619, 1980, 1980, 2619,
        3,
        {{11327, "/root/tools/memhog", 2566}, {11328, "/root/tools/memhog", 1542}, {11345, "./gpu_burn", 15690}},
    },
};

static int initialised = 0;

static nvmlReturn_t copy_text(char *out, unsigned int length, const char *text) {
    if (out == NULL || strlen(text) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(out, text);
    return NVML_SUCCESS;
}

static int valid(nvmlDevice_t device) {
    return initialised && (device == &devices[0] || device == &devices[1]);
}

/* ------------------------------------------------------------------ library */

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; initialised = 1; return NVML_SUCCESS; }
nvmlReturn_t nvmlInit_v2(void) { initialised = 1; return NVML_SUCCESS; }
nvmlReturn_t nvmlInit(void) { initialised = 1; return NVML_SUCCESS; }
nvmlReturn_t nvmlShutdown(void) { initialised = 0; return NVML_SUCCESS; }

const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    default: return "Unknown Error";
    }
}

/* ------------------------------------------------------------------ system */

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    return copy_text(version, length, "590.48.01");
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    return copy_text(version, length, "590.48"); /* nvidia-smi --version: "NVML version : 590.48" */
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version) { *version = 13010; return NVML_SUCCESS; }
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version) { *version = 13010; return NVML_SUCCESS; }

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length) {
    for (int d = 0; d < 2; d++)
        for (unsigned int p = 0; p < devices[d].process_count; p++)
            if (devices[d].processes[p].pid == pid) return copy_text(name, length, devices[d].processes[p].name);
    return NVML_ERROR_NOT_FOUND;
}

/* ------------------------------------------------------------------ devices */

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    *count = 2;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (index >= 2) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    return valid(device) ? copy_text(name, length, device->name) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    return valid(device) ? copy_text(uuid, length, device->uuid) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length) {
    return valid(device) ? copy_text(serial, length, device->serial) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length) {
    return valid(device) ? copy_text(version, length, device->vbios) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *part, unsigned int length) {
    return valid(device) ? copy_text(part, length, device->board_part) : NVML_ERROR_INVALID_ARGUMENT;
}

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    strncpy(pci->busIdLegacy, device->bus_id, sizeof pci->busIdLegacy - 1);
    strncpy(pci->busId, device->bus_id, sizeof pci->busId - 1);
    pci->domain = device->domain;
    pci->bus = device->bus;
    pci->device = device->device;
    pci->pciDeviceId = device->pci_device_id;
    pci->pciSubSystemId = device->pci_subsystem_id;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *major = device->cc_major;
    *minor = device->cc_minor;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, unsigned int *architecture) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *architecture = device->architecture;
    return NVML_SUCCESS;
}

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = device->total_mib * MIB;
    memory->free = device->free_mib * MIB;
    memory->used = (device->total_mib - device->free_mib) * MIB; /* v1 counts reserved as used */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != NVML_MEMORY_V2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memory->total = device->total_mib * MIB;
    memory->reserved = device->reserved_mib * MIB;
    memory->free = device->free_mib * MIB;
    memory->used = device->used_mib * MIB;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *limit = device->power_limit_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    *power = device->power_draw_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, unsigned int sensor, unsigned int *temperature) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    if (sensor != 0) return NVML_ERROR_NOT_SUPPORTED;
    *temperature = device->temperature_c;
    return NVML_SUCCESS;
}

typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    utilization->gpu = device->util_gpu;
    utilization->memory = device->util_memory;
    return NVML_SUCCESS;
}

static nvmlReturn_t clock_of(unsigned int type, unsigned int graphics, unsigned int sm, unsigned int mem,
                             unsigned int *clock) {
    switch (type) {
    case 0: *clock = graphics; return NVML_SUCCESS;
    case 1: *clock = sm; return NVML_SUCCESS;
    case 2: *clock = mem; return NVML_SUCCESS;
    default: return NVML_ERROR_NOT_SUPPORTED;
    }
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, unsigned int type, unsigned int *clock) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    return clock_of(type, device->clock_graphics, device->clock_sm, device->clock_mem, clock);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, unsigned int type, unsigned int *clock) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    return clock_of(type, device->max_graphics, device->max_sm, device->max_mem, clock);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                     nvmlProcessInfo_t *infos) {
    if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int needed = device->process_count;
    if (needed == 0) { *count = 0; return NVML_SUCCESS; }
    if (infos == NULL || *count < needed) { *count = needed; return NVML_ERROR_INSUFFICIENT_SIZE; }
    for (unsigned int i = 0; i < needed; i++) {
        infos[i].pid = device->processes[i].pid;
        infos[i].usedGpuMemory = device->processes[i].used_mib * MIB;
        infos[i].gpuInstanceId = NO_INSTANCE;
        infos[i].computeInstanceId = NO_INSTANCE;
    }
    *count = needed;
    return NVML_SUCCESS;
}
