/* A fake libnvidia-ml.so.1: one Tesla T4 on driver 515.105.01 (CUDA 11.7), the values of the real capture
 * tests/data/nvidia-smi/tesla-t4.xml. The tests compile it (cc -shared -fPIC) and put its directory on
 * LD_LIBRARY_PATH, so gpudoctor's real path runs: ctypes.CDLL("libnvidia-ml.so.1"), then nvidia-ml-py's pynvml.
 *
 * The C ABI is NVML's (https://docs.nvidia.com/deploy/nvml-api/): every entry point returns nvmlReturn_t (an int:
 * 0 success, 3 NOT_SUPPORTED, 7 INSUFFICIENT_SIZE, 9 DRIVER_NOT_LOADED, ...), outputs go through pointers, and
 * nvmlDevice_t is an opaque pointer. The symbol names are the ones nvidia-ml-py 13.615.71's pynvml.py looks up with
 * _nvmlGetFunctionPointer (pynvml.nvmlInit -> "nvmlInitWithFlags", nvmlDeviceGetCount -> "nvmlDeviceGetCount_v2",
 * nvmlDeviceGetHandleByIndex -> "..._v2", nvmlDeviceGetPciInfo -> "nvmlDeviceGetPciInfo_v3",
 * nvmlDeviceGet{Compute,Graphics}RunningProcesses -> "..._v3"); the structs match pynvml's ctypes Structures.
 *
 * Left out on purpose, because a 515 driver has no such symbol and pynvml then raises NVMLError_FunctionNotFound:
 * nvmlDeviceGetCurrentClocksEventReasons (the R525 reference still lists only the ...ThrottleReasons names) and
 * nvmlDeviceGetGpuFabricInfo (NVSwitch fabric). Anything else gpudoctor does not call is absent too.
 *
 * Environment, read at each call, so one compiled library serves every variant:
 *   FAKE_NVML_INIT_RETURN=9           nvmlInitWithFlags returns this code (9 DRIVER_NOT_LOADED, 18 version mismatch)
 *   FAKE_NVML_NOT_SUPPORTED=ecc,power these groups answer NOT_SUPPORTED, as on a GeForce board; the groups are
 *                                     ecc, power, pcie, processes, clocks, temperature, utilization, persistence,
 *                                     display, retired, memory, cc
 */
#include <stdlib.h>
#include <string.h>

#define SUCCESS 0
#define ERROR_UNINITIALIZED 1
#define ERROR_INVALID_ARGUMENT 2
#define ERROR_NOT_SUPPORTED 3
#define ERROR_INSUFFICIENT_SIZE 7
#define MIB (1024ULL * 1024ULL)

typedef struct { int index; } fake_device;  /* nvmlDevice_t points at one of these */
static fake_device tesla_t4 = {0};
static int initialised;                       /* NVML counts nvmlInit calls; every call needs one outstanding */

typedef struct {                              /* nvmlPciInfo_t, pynvml.nvmlPciInfo_t */
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} pci_info;
typedef struct { unsigned long long total, free, used; } memory_info;        /* nvmlMemory_t (v1) */
typedef struct { unsigned int gpu, memory; } utilization;                     /* nvmlUtilization_t */
typedef struct {                              /* nvmlProcessInfo_t = pynvml.c_nvmlProcessInfo_v2_t (= _v3_t) */
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;  /* 0xFFFFFFFF: not in a MIG instance */
} process_info;

static int unsupported(const char *group) {
    const char *list = getenv("FAKE_NVML_NOT_SUPPORTED");
    size_t n = strlen(group);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, group, n) == 0 && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Every device call: initialised, a handle this library gave out, then the group's NOT_SUPPORTED switch. */
#define DEVICE_CALL(handle, group, out)                                        \
    if (!initialised) return ERROR_UNINITIALIZED;                              \
    if ((handle) != &tesla_t4 || !(out)) return ERROR_INVALID_ARGUMENT;        \
    if (unsupported(group)) return ERROR_NOT_SUPPORTED;

static int copy_string(const char *value, char *buffer, unsigned int length) {
    if (!buffer) return ERROR_INVALID_ARGUMENT;
    if (strlen(value) + 1 > length) return ERROR_INSUFFICIENT_SIZE;
    strcpy(buffer, value);
    return SUCCESS;
}

int nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    const char *code = getenv("FAKE_NVML_INIT_RETURN");
    if (code && atoi(code) != SUCCESS) return atoi(code);
    initialised++;
    return SUCCESS;
}
int nvmlShutdown(void) {
    if (!initialised) return ERROR_UNINITIALIZED;
    initialised--;
    return SUCCESS;
}
/* pynvml's NVMLError.__str__ asks this only for codes its own table lacks. */
const char *nvmlErrorString(int result) { return result == SUCCESS ? "Success" : "Unknown Error"; }

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (!initialised) return ERROR_UNINITIALIZED;
    return copy_string("515.105.01", version, length);
}
static int cuda_version(int *version) {      /* 1000 * major + 10 * minor, as cuDriverGetVersion */
    if (!initialised) return ERROR_UNINITIALIZED;
    if (!version) return ERROR_INVALID_ARGUMENT;
    *version = 11070;
    return SUCCESS;
}
int nvmlSystemGetCudaDriverVersion(int *version) { return cuda_version(version); }
int nvmlSystemGetCudaDriverVersion_v2(int *version) { return cuda_version(version); }

int nvmlDeviceGetCount_v2(unsigned int *count) {
    if (!initialised) return ERROR_UNINITIALIZED;
    if (!count) return ERROR_INVALID_ARGUMENT;
    *count = 1;
    return SUCCESS;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, fake_device **device) {
    if (!initialised) return ERROR_UNINITIALIZED;
    if (index != 0 || !device) return ERROR_INVALID_ARGUMENT;
    *device = &tesla_t4;
    return SUCCESS;
}
int nvmlDeviceGetName(fake_device *d, char *name, unsigned int length) {
    DEVICE_CALL(d, "name", name) return copy_string("Tesla T4", name, length);
}
int nvmlDeviceGetUUID(fake_device *d, char *uuid, unsigned int length) {
    DEVICE_CALL(d, "uuid", uuid) return copy_string("GPU-d37e67a5-91dd-3774-a5cb-99096249601a", uuid, length);
}
int nvmlDeviceGetPciInfo_v3(fake_device *d, pci_info *pci) {
    DEVICE_CALL(d, "pci", pci)
    memset(pci, 0, sizeof *pci);
    strcpy(pci->busIdLegacy, "0000:00:1E.0");
    pci->device = 0x1E;
    pci->pciDeviceId = 0x1EB810DE;
    pci->pciSubSystemId = 0x12A210DE;
    strcpy(pci->busId, "00000000:00:1E.0");
    return SUCCESS;
}
int nvmlDeviceGetCudaComputeCapability(fake_device *d, int *major, int *minor) {
    DEVICE_CALL(d, "cc", major) if (!minor) return ERROR_INVALID_ARGUMENT;
    *major = 7, *minor = 5;
    return SUCCESS;
}
/* v1 "used" is reserved + allocated (NVML reference, nvmlMemory_t): 388 + 1032 MiB in the capture. */
int nvmlDeviceGetMemoryInfo(fake_device *d, memory_info *memory) {
    DEVICE_CALL(d, "memory", memory)
    memory->total = 15360 * MIB, memory->used = (388 + 1032) * MIB;
    memory->free = memory->total - memory->used;
    return SUCCESS;
}
static int uint_answer(fake_device *d, const char *group, unsigned int *out, unsigned int value) {
    DEVICE_CALL(d, group, out) *out = value;
    return SUCCESS;
}
int nvmlDeviceGetCurrPcieLinkGeneration(fake_device *d, unsigned int *g) { return uint_answer(d, "pcie", g, 3); }
int nvmlDeviceGetMaxPcieLinkGeneration(fake_device *d, unsigned int *g) { return uint_answer(d, "pcie", g, 3); }
int nvmlDeviceGetCurrPcieLinkWidth(fake_device *d, unsigned int *w) { return uint_answer(d, "pcie", w, 8); }
int nvmlDeviceGetMaxPcieLinkWidth(fake_device *d, unsigned int *w) { return uint_answer(d, "pcie", w, 16); }
int nvmlDeviceGetPersistenceMode(fake_device *d, unsigned int *m) { return uint_answer(d, "persistence", m, 0); }
int nvmlDeviceGetDisplayActive(fake_device *d, unsigned int *m) { return uint_answer(d, "display", m, 0); }
int nvmlDeviceGetPowerManagementLimit(fake_device *d, unsigned int *mw) { return uint_answer(d, "power", mw, 70000); }
int nvmlDeviceGetPowerManagementDefaultLimit(fake_device *d, unsigned int *mw) {
    return uint_answer(d, "power", mw, 70000);
}
int nvmlDeviceGetRetiredPagesPendingStatus(fake_device *d, unsigned int *p) { return uint_answer(d, "retired", p, 0); }
int nvmlDeviceGetTemperature(fake_device *d, unsigned int sensor, unsigned int *celsius) {
    (void)sensor;
    return uint_answer(d, "temperature", celsius, 40);
}
/* nvmlClockType_t 1 = NVML_CLOCK_SM: 585 MHz now, 1590 MHz at most; the other clocks the same in the capture. */
int nvmlDeviceGetClockInfo(fake_device *d, unsigned int type, unsigned int *mhz) {
    (void)type;
    return uint_answer(d, "clocks", mhz, 585);
}
int nvmlDeviceGetMaxClockInfo(fake_device *d, unsigned int type, unsigned int *mhz) {
    (void)type;
    return uint_answer(d, "clocks", mhz, 1590);
}
int nvmlDeviceGetUtilizationRates(fake_device *d, utilization *u) {
    DEVICE_CALL(d, "utilization", u) u->gpu = 0, u->memory = 0;
    return SUCCESS;
}
/* Every reason "Not Active" in the capture: an empty mask. */
int nvmlDeviceGetCurrentClocksThrottleReasons(fake_device *d, unsigned long long *reasons) {
    DEVICE_CALL(d, "clocks", reasons) *reasons = 0;
    return SUCCESS;
}
/* ECC is enabled on the T4 and counted no error; a GeForce board says NOT_SUPPORTED. */
int nvmlDeviceGetTotalEccErrors(fake_device *d, unsigned int type, unsigned int counter, unsigned long long *count) {
    (void)type, (void)counter;
    DEVICE_CALL(d, "ecc", count) *count = 0;
    return SUCCESS;
}
/* Retired pages: none. A NULL array with *count 0 asks for the size (pynvml calls twice). */
int nvmlDeviceGetRetiredPages(fake_device *d, unsigned int cause, unsigned int *count, unsigned long long *pages) {
    (void)cause, (void)pages;
    DEVICE_CALL(d, "retired", count) *count = 0;
    return SUCCESS;
}
/* No MIG, no row remapper (both Ampere and later), no NVLink on a T4: NOT_SUPPORTED, as the capture's N/A. */
int nvmlDeviceGetMigMode(fake_device *d, unsigned int *current, unsigned int *pending) {
    (void)pending; DEVICE_CALL(d, "mig", current) return ERROR_NOT_SUPPORTED;
}
int nvmlDeviceGetRemappedRows(fake_device *d, unsigned int *corrected, unsigned int *u, unsigned int *p, unsigned int *f) {
    (void)u, (void)p, (void)f; DEVICE_CALL(d, "remap", corrected) return ERROR_NOT_SUPPORTED;
}
int nvmlDeviceGetNvLinkState(fake_device *d, unsigned int link, unsigned int *active) {
    (void)link; DEVICE_CALL(d, "nvlink", active) return ERROR_NOT_SUPPORTED;
}
/* The capture's processes. NVML's protocol: too small a *count -> INSUFFICIENT_SIZE with the needed count. */
static int processes(fake_device *d, unsigned int *count, process_info *infos, unsigned int pid, unsigned long long mib) {
    DEVICE_CALL(d, "processes", count)
    if (*count < 1 || !infos) { *count = 1; return ERROR_INSUFFICIENT_SIZE; }
    *count = 1;
    infos[0] = (process_info){pid, mib * MIB, 0xFFFFFFFFu, 0xFFFFFFFFu};
    return SUCCESS;
}
int nvmlDeviceGetComputeRunningProcesses_v3(fake_device *d, unsigned int *count, process_info *infos) {
    return processes(d, count, infos, 5762, 1005);  /* python */
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(fake_device *d, unsigned int *count, process_info *infos) {
    return processes(d, count, infos, 675, 22);  /* /usr/lib/xorg/Xorg */
}
