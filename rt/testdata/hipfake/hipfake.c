// TEST INFRASTRUCTURE ONLY: never part of qd or of a user's binary.
//
// A fake of ROCm 5's libamdhip64.so, with hiprtc inside as ROCm 5 has it,
// for testing qd's HIP driver on a machine without a GPU
// (TestHIPDriverOnFake). Device memory is host memory; kernels do not run,
// but every call that queues work is written, one line each, to the file
// QDFAKE_LOG names, so the test can check what the driver asked for and in
// which order. The device is a wave-64 gfx90a; "code objects" are the
// source behind a FAKECO: header.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hip_error;
enum {
	hipErrorInvalidValue = 1,
	hipErrorInvalidDevice = 101,
	hipErrorInvalidImage = 200,
	hipErrorInvalidHandle = 400,
	hipErrorNotFound = 500,
};

static void logf_(const char *format, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void logf_(const char *format, ...) {
	const char *path = getenv("QDFAKE_LOG");
	if (!path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	va_list ap;
	va_start(ap, format);
	vfprintf(f, format, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

// Streams and events are numbered objects, so the log can name them.
struct object {
	int kind; // 's' or 'e'
	int id;
	unsigned flags;
};
static int next_id = 1;

static struct object *new_object(int kind, unsigned flags) {
	struct object *o = calloc(1, sizeof *o);
	o->kind = kind;
	o->id = next_id++;
	o->flags = flags;
	return o;
}

static int stream_id(void *s) { return s ? ((struct object *)s)->id : 0; }

static __thread int current;

hip_error hipInit(unsigned flags) { return flags == 0 ? 0 : hipErrorInvalidValue; }
hip_error hipGetDeviceCount(int *n) { *n = 1; return 0; }
hip_error hipDeviceGet(int *dev, int index) { *dev = index; return index == 0 ? 0 : hipErrorInvalidDevice; }
hip_error hipDeviceGetName(char *name, int len, int dev) { snprintf(name, len, "AMD Instinct MI210 (qd fake)"); return 0; }
hip_error hipSetDevice(int index) { current = index; return index == 0 ? 0 : hipErrorInvalidDevice; }
hip_error hipGetDevice(int *index) { *index = current; return 0; }
hip_error hipRuntimeGetVersion(int *v) { *v = 50221153; return 0; }
hip_error hipDeviceSynchronize(void) { logf_("synchronize all"); return 0; }

hip_error hipDeviceGetAttribute(int *v, int attr, int dev) {
	switch (attr) {
	case 56: *v = 1024; return 0; // max threads per block
	case 57: *v = 2048; return 0; // max threads per multiprocessor
	case 63: *v = 104; return 0;  // multiprocessors
	case 87: *v = 64; return 0;   // wave size
	case 74: *v = 65536; return 0; // shared memory per block
	}
	return hipErrorInvalidValue;
}

// hipGetDeviceProperties fills ROCm 5's hipDeviceProp_t as far as qd
// reads it: the name at offset 0 and gcnArchName at 396.
hip_error hipGetDeviceProperties(void *props, int dev) {
	memset(props, 0, 792);
	hipDeviceGetName(props, 256, dev);
	strcpy((char *)props + 396, "gfx90a:sramecc+:xnack-");
	return 0;
}

hip_error hipMalloc(void **p, size_t n) { *p = calloc(1, n ? n : 1); return 0; }
hip_error hipFree(void *p) { free(p); return 0; }
hip_error hipMemcpyHtoD(void *dst, const void *src, size_t n) { memcpy(dst, src, n); return 0; }
hip_error hipMemcpyDtoH(void *dst, const void *src, size_t n) { memcpy(dst, src, n); return 0; }
hip_error hipHostMalloc(void **p, size_t n, unsigned flags) { *p = calloc(1, n ? n : 1); return flags <= 3 ? 0 : hipErrorInvalidValue; }
hip_error hipHostGetDevicePointer(void **dev, void *host, unsigned flags) { *dev = host; return 0; }
hip_error hipHostFree(void *p) { free(p); return 0; }

hip_error hipMemcpyHtoDAsync(void *dst, const void *src, size_t n, void *s) {
	memcpy(dst, src, n);
	logf_("copy to device on s%d", stream_id(s));
	return 0;
}
hip_error hipMemcpyDtoHAsync(void *dst, const void *src, size_t n, void *s) {
	memcpy(dst, src, n);
	logf_("copy to host on s%d", stream_id(s));
	return 0;
}
hip_error hipMemcpyDtoDAsync(void *dst, const void *src, size_t n, void *s) {
	memmove(dst, src, n);
	logf_("copy on device on s%d", stream_id(s));
	return 0;
}
hip_error hipMemsetD8Async(void *dst, unsigned char v, size_t n, void *s) {
	memset(dst, v, n);
	logf_("memset on s%d", stream_id(s));
	return 0;
}

hip_error hipStreamCreateWithPriority(void **s, unsigned flags, int priority) {
	if (flags != 1 || priority < -1 || priority > 0) return hipErrorInvalidValue;
	*s = new_object('s', flags);
	return 0;
}
hip_error hipDeviceGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -1; return 0; }
hip_error hipStreamDestroy(void *s) { free(s); return 0; }
hip_error hipStreamQuery(void *s) { return 0; }
hip_error hipStreamSynchronize(void *s) { logf_("synchronize s%d", stream_id(s)); return 0; }

hip_error hipEventCreateWithFlags(void **e, unsigned flags) { *e = new_object('e', flags); return 0; }
hip_error hipEventDestroy(void *e) { free(e); return 0; }
hip_error hipEventRecord(void *e, void *s) {
	if (!e) return hipErrorInvalidHandle;
	logf_("record e%d on s%d", ((struct object *)e)->id, stream_id(s));
	return 0;
}
hip_error hipStreamWaitEvent(void *s, void *e, unsigned flags) {
	if (!e || flags) return hipErrorInvalidHandle;
	logf_("s%d waits for e%d", stream_id(s), ((struct object *)e)->id);
	return 0;
}
hip_error hipEventSynchronize(void *e) { return 0; }
hip_error hipEventQuery(void *e) { return 0; }
hip_error hipEventElapsedTime(float *ms, void *start, void *end) {
	if (((struct object *)start)->flags != 0 || ((struct object *)end)->flags != 0) return hipErrorInvalidHandle;
	*ms = 0.5f;
	return 0;
}

// A module is its image; a function, the name of an entry it declares.
hip_error hipModuleLoadDataEx(void **mod, const void *image, unsigned n, void *options, void **values) {
	if (strncmp(image, "FAKECO:", 7) != 0) return hipErrorInvalidImage;
	*mod = strdup(image);
	logf_("load module");
	return 0;
}
hip_error hipModuleLoadData(void **mod, const void *image) { return hipModuleLoadDataEx(mod, image, 0, NULL, NULL); }
hip_error hipModuleUnload(void *mod) { free(mod); return 0; }
hip_error hipModuleGetFunction(void **fn, void *mod, const char *name) {
	char decl[256];
	snprintf(decl, sizeof decl, "void %s(", name);
	if (!strstr(mod, decl)) return hipErrorNotFound;
	*fn = strdup(name);
	return 0;
}

// hipModuleLaunchKernel takes the arguments as one buffer, the extra list
// ending with HIP's end marker, 3.
hip_error hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shared, void *s, void **params, void **extra) {
	if (params || !extra || extra[0] != (void *)1 || extra[2] != (void *)2 || extra[4] != (void *)3) return hipErrorInvalidValue;
	const unsigned char *args = extra[1];
	size_t size = *(size_t *)extra[3];
	char hex[2 * 256 + 1] = "";
	for (size_t i = 0; i < size && i < 256; i++) sprintf(hex + 2 * i, "%02x", args[i]);
	logf_("launch %s on s%d grid %u block %u args %s", (char *)fn, stream_id(s), gx, bx, hex);
	return 0;
}

const char *hipGetErrorName(hip_error r) {
	switch (r) {
	case 0: return "hipSuccess";
	case 1: return "hipErrorInvalidValue";
	case 101: return "hipErrorInvalidDevice";
	case 200: return "hipErrorInvalidImage";
	case 400: return "hipErrorInvalidHandle";
	case 500: return "hipErrorNotFound";
	}
	return "hipErrorUnknown";
}

// hiprtc, in the HIP runtime as in ROCm 5: a compilation checks the target
// option, fails on source that mentions frobnicate, and otherwise makes a
// FAKECO: image of the source.
struct program {
	char *source, *code, *log;
};

int hiprtcCreateProgram(void **prog, const char *src, const char *name, int n, const char **h, const char **i) {
	struct program *p = calloc(1, sizeof *p);
	p->source = strdup(src);
	*prog = p;
	return 0;
}

int hiprtcCompileProgram(void *prog, int n, const char **options) {
	struct program *p = prog;
	int target = 0;
	for (int i = 0; i < n; i++) target |= strcmp(options[i], "--gpu-architecture=gfx90a:sramecc+:xnack-") == 0;
	logf_("compile");
	if (!target) return 5; // HIPRTC_ERROR_INVALID_OPTION
	if (strstr(p->source, "frobnicate")) {
		p->log = strdup("qd.hip:1:40: error: use of undeclared identifier 'frobnicate'");
		return 6; // HIPRTC_ERROR_COMPILATION
	}
	p->code = malloc(strlen(p->source) + 8);
	strcpy(p->code, "FAKECO:");
	strcat(p->code, p->source);
	return 0;
}

int hiprtcGetProgramLogSize(void *prog, size_t *n) {
	struct program *p = prog;
	*n = p->log ? strlen(p->log) + 1 : 1;
	return 0;
}
int hiprtcGetProgramLog(void *prog, char *log) {
	struct program *p = prog;
	strcpy(log, p->log ? p->log : "");
	return 0;
}
int hiprtcGetCodeSize(void *prog, size_t *n) {
	struct program *p = prog;
	*n = strlen(p->code) + 1;
	return 0;
}
int hiprtcGetCode(void *prog, char *code) {
	struct program *p = prog;
	strcpy(code, p->code);
	return 0;
}
int hiprtcDestroyProgram(void **prog) {
	struct program *p = *prog;
	free(p->source);
	free(p->code);
	free(p->log);
	free(p);
	*prog = NULL;
	return 0;
}
const char *hiprtcGetErrorString(int r) {
	switch (r) {
	case 5: return "HIPRTC_ERROR_INVALID_OPTION";
	case 6: return "HIPRTC_ERROR_COMPILATION";
	}
	return "HIPRTC_ERROR_INTERNAL_ERROR";
}
int hiprtcVersion(int *major, int *minor) { *major = 5; *minor = 2; return 0; }
