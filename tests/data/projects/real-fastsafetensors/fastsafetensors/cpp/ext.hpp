// SPDX-License-Identifier: Apache-2.0

#ifndef __EXT_HPP__
#define __EXT_HPP__

#include <cstdint>
#include <memory>
#include <mutex>
#include <condition_variable>
#include <thread>
#include <map>
#include <string>
#include <stdexcept>

#ifdef _MSC_VER
#include <BaseTsd.h>
typedef SSIZE_T ssize_t;
#endif

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpu_compat.h"

#define ENV_ENABLE_INIT_LOG "FASTSAFETENSORS_ENABLE_INIT_LOG"

#ifndef __MOD_NAME__
#define __MOD_NAME__ fastsafetensors_cpp
#endif

typedef enum CUfileOpError { CU_FILE_SUCCESS=0, CU_FILE_INTERNAL_ERROR=5030 } CUfileOpError;
enum CUfileFileHandleType { CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1 };
typedef void * CUfileHandle_t;
typedef struct CUfileDescr_t {
    enum CUfileFileHandleType type;
    union {
        int fd;
        void *handle;
    } handle;
    const void *fs_ops; /* CUfileFSOps_t */
} CUfileDescr_t;
typedef struct CUfileError { CUfileOpError err; } CUfileError_t;

// FGDS (libfgds.so) file identifier. Linux-only; resolved at runtime via
// dlopen() in load_fgds_library(), same as cuFile/hipFile above.
typedef struct fgds_fileid {
    int fd;
    int device_id;
} fgds_fileid;

// Define minimal CUDA/HIP types for both platforms to avoid compile-time dependencies
// We load all GPU functions dynamically at runtime via dlopen()
typedef enum cudaError { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 } cudaError_t;
enum cudaDeviceAttr {cudaDevAttrGPUDirectRDMASupported = 116};
enum cudaMemcpyKind { cudaMemcpyHostToDevice=1, cudaMemcpyDefault = 4, cudaMemcpyDeviceToHost=2, cudaMemcpyDeviceToDevice=3 };
typedef void * cudaStream_t;

enum cudaExternalMemoryHandleType {
    cudaExternalMemoryHandleTypeOpaqueFd           = 1,
    cudaExternalMemoryHandleTypeOpaqueWin32        = 2,
    cudaExternalMemoryHandleTypeOpaqueWin32Kmt     = 3,
    cudaExternalMemoryHandleTypeD3D12Heap          = 4,
    cudaExternalMemoryHandleTypeD3D12Resource      = 5,
    cudaExternalMemoryHandleTypeD3D11Resource      = 6,
    cudaExternalMemoryHandleTypeD3D11ResourceKmt   = 7
};

struct cudaExternalMemoryHandleDesc {
    cudaExternalMemoryHandleType type;
    union {
        struct {
            void *handle;
            const void *name;
        } win32;
    } handle;
    unsigned long long size;
    unsigned int flags;
};

struct cudaExternalMemoryBufferDesc {
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
};

typedef void * cudaExternalMemory_t;
static const unsigned int cudaExternalMemoryDedicated = 0x1;

typedef enum CUfileFeatureFlags {
    CU_FILE_DYN_ROUTING_SUPPORTED =0,
    CU_FILE_BATCH_IO_SUPPORTED = 1,
    CU_FILE_STREAMS_SUPPORTED = 2
} CUfileFeatureFlags_t;

typedef struct CUfileDrvProps {
    struct {
      unsigned int major_version;
      unsigned int minor_version;
      size_t poll_thresh_size;
      size_t max_direct_io_size;
      unsigned int dstatusflags;
      unsigned int dcontrolflags;
    } nvfs;
    CUfileFeatureFlags_t fflags;
    unsigned int max_device_cache_size;
    unsigned int per_buffer_cache_size;
    unsigned int max_pinned_memory_size;
    unsigned int max_batch_io_size;
    unsigned int max_batch_io_timeout_msecs;
 } CUfileDrvProps_t;

int get_alignment_size();
void set_debug_log(bool _debug_log);
void set_gil_release(bool enable);
bool get_gil_release();
void init_gil_release_from_env();
int init_gds();
int close_gds();
uint64_t gds_device_cache_size();
bool is_hipfile_memory_budget_supported();
std::string get_device_pci_bus(int deviceId);
int set_numa_node(int numa_node);
pybind11::bytes read_buffer(uintptr_t _dst, uint64_t length);
uintptr_t cpu_malloc(uint64_t length);
void cpu_free(uintptr_t addr);

class raw_device_pointer {
private:
    const void * _devPtr_base;
public:
    raw_device_pointer(const uintptr_t devPtr_base): _devPtr_base(reinterpret_cast<const void *>(devPtr_base)) {}
    const uintptr_t get_uintptr() const { return reinterpret_cast<const uintptr_t>(this->_devPtr_base); }
    const void * get_raw() const { return this->_devPtr_base; }
};

typedef struct ext_funcs ext_funcs_t;
extern ext_funcs_t cpu_fns;
extern ext_funcs_t cuda_fns;

class gds_device_buffer {
private:
    const std::shared_ptr<const raw_device_pointer> _devPtr_base;
    const uint64_t _length;
    ext_funcs_t *_fns;
public:
    gds_device_buffer(const uintptr_t devPtr_base, const uint64_t length, bool use_cuda):
        _devPtr_base(std::make_shared<const raw_device_pointer>((devPtr_base))), _length(length), _fns(use_cuda?&cuda_fns:&cpu_fns) {}
    const int cufile_register(uint64_t offset, uint64_t length);
    const int cufile_deregister(uint64_t offset);
    const int memmove(uint64_t _dst_off, uint64_t _src_off, const gds_device_buffer& _tmp, uint64_t length);
    void * _get_raw_pointer(uint64_t offset, uint64_t length) const { // not exposed to python
        if (this->_length < offset + length) {
            char msg[256];
            snprintf(msg, 256, "out of bound access: 0x%p, length=%" PRIu64 ", request offset=%" PRIu64 ", request length=%" PRIu64, this->_devPtr_base->get_raw(), this->_length, offset, length);
            throw std::out_of_range(msg);
        }
        return reinterpret_cast<void *>(this->_devPtr_base->get_uintptr() + offset);
    }
    const uintptr_t get_base_address() const {
        return this->_devPtr_base->get_uintptr();
    }
    const uint64_t get_length() const {
        return _length;
    }
};

class nogds_file_reader {
private:
    struct state;
    std::unique_ptr<state> _state;
public:
    nogds_file_reader(bool use_mmap, uint64_t bbuf_size_kb, uint64_t max_threads,
                      bool use_cuda, int device_id, int numa_node = -1);
    const int submit_read(int fd, const gds_device_buffer& dst, int64_t offset,
                          int64_t length, uint64_t ptr_off, bool track_progress = false);
    const uint64_t wait_read_prefix(int request_id, uint64_t length);
    const uintptr_t wait_read(int request_id);
    ~nogds_file_reader();
};

class raw_gds_file_handle {
private:
    int _fd;
    CUfileHandle_t _cf_handle;
    ext_funcs_t * _fns;

public:
    raw_gds_file_handle(std::string filename, bool o_direct, bool use_cuda);
    ~raw_gds_file_handle();
    const CUfileHandle_t get_cf_handle() const { return this->_cf_handle; }
    const int get_fd() const { return this->_fd; }
};

class gds_file_handle {
private:
    std::shared_ptr<const raw_gds_file_handle> _h;
public:
    gds_file_handle(std::string filename, bool o_direct, bool use_cuda):
        _h(std::make_shared<const raw_gds_file_handle>(filename, o_direct, use_cuda)) {}
    const CUfileHandle_t _get_cf_handle() const { return this->_h->get_cf_handle(); }
    const int _get_fd() const { return this->_h->get_fd(); }
};

class gds_file_reader {
private:
    struct state;
    std::unique_ptr<state> _state;
public:
    gds_file_reader(int max_threads, bool use_cuda, int device_id,
                    uint64_t block_size = 16 * 1024 * 1024, int numa_node = -1);
    ~gds_file_reader();
    const int submit_read(const gds_file_handle &fh, const gds_device_buffer &dst,
                         uint64_t offset, uint64_t length, uint64_t ptr_off,
                         uint64_t file_length, bool track_progress = false);
    const uint64_t wait_read_prefix(int id, uint64_t length);
    const ssize_t wait_read(int id);
};

// FGDS (libfgds.so) support — Linux only. Symbols are resolved at runtime in
// load_fgds_library(), which the FGDS copier path calls on demand (so other
// copiers never load libfgds.so); is_fgds_found() reports whether they are
// available. init_fgds()/close_fgds() manage per-device fgds_open/fgds_close
// explicitly, mirroring the GDS init_gds()/close_gds() model.
void load_fgds_library();
bool is_fgds_found();
int init_fgds(int device_id);
int close_fgds(int device_id);

class fgds_device_buffer {
private:
    const uintptr_t _devPtr;
    const uint64_t _length;
public:
    fgds_device_buffer(const uintptr_t dev_ptr, const uint64_t length);
    uintptr_t get_base_address() const;
    uint64_t get_length() const;
};

class fgds_file_handle {
private:
    int _fd;
    int _device_id;
public:
    fgds_file_handle(std::string filename, bool o_direct, int device_id);
    ~fgds_file_handle();
    int get_device_id() const;
    int get_fd() const;
};

class fgds_file_reader {
private:
    int _max_threads;
    int _device_id;
    std::thread** _threads;
    std::atomic<int> _next_id;
    std::map<int, ssize_t> _results;
    std::mutex _result_lock;
public:
    fgds_file_reader(const int max_threads, int device_id);
    ~fgds_file_reader();
    const int submit_read(const fgds_file_handle& fh, const fgds_device_buffer& dst, const uint64_t offset, const uint64_t length, const uint64_t ptr_off);
    const ssize_t wait_read(const int id);
};

typedef struct ext_funcs {
    CUfileError_t (*cuFileDriverOpen)();
    CUfileError_t (*cuFileDriverClose)();
    CUfileError_t (*cuFileDriverGetProperties)(CUfileDrvProps_t *);
    CUfileError_t (*cuFileDriverSetMaxDirectIOSize)(size_t);
    CUfileError_t (*cuFileDriverSetMaxPinnedMemSize)(size_t);
    CUfileError_t (*cuFileBufRegister)(const void *, size_t, int);
    CUfileError_t (*cuFileBufDeregister)(const void *);
    CUfileError_t (*cuFileHandleRegister)(CUfileHandle_t *, CUfileDescr_t *);
    void (*cuFileHandleDeregister)(CUfileHandle_t);
    ssize_t (*cuFileRead)(CUfileHandle_t, void *, size_t, off_t, off_t);
    cudaError_t (*cudaMemcpy)(void *, const void *, size_t, enum cudaMemcpyKind);
    cudaError_t (*cudaMemcpyAsync)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
    cudaError_t (*cudaStreamCreateWithFlags)(cudaStream_t *, unsigned int);
    cudaError_t (*cudaStreamSynchronize)(cudaStream_t);
    cudaError_t (*cudaStreamDestroy)(cudaStream_t);
    cudaError_t (*cudaDeviceSynchronize)(void);
    cudaError_t (*cudaHostAlloc)(void **, size_t, unsigned int);
    cudaError_t (*cudaFreeHost)(void *);
    cudaError_t (*cudaDeviceGetPCIBusId)(char *, int, int);
    cudaError_t (*cudaDeviceMalloc)(void **, size_t);
    cudaError_t (*cudaDeviceFree)(void *);
    int (*numa_run_on_node)(int);
    cudaError_t (*cudaDriverGetVersion)(int *);
    cudaError_t (*cudaDeviceGetAttribute)(int *, enum cudaDeviceAttr, int);
    cudaError_t (*cudaSetDevice)(int);
    cudaError_t (*cudaImportExternalMemory)(cudaExternalMemory_t*, const struct cudaExternalMemoryHandleDesc*);
    cudaError_t (*cudaExternalMemoryGetMappedBuffer)(void**, cudaExternalMemory_t, const struct cudaExternalMemoryBufferDesc*);
    cudaError_t (*cudaDestroyExternalMemory)(cudaExternalMemory_t);
} ext_funcs_t;

typedef struct cpp_metrics {
    size_t bounce_buffer_bytes;
} cpp_metrics_t;

#endif //__EXT_HPP__
