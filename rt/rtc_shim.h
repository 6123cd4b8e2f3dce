// The runtime compilers of C++ device code: hiprtc for HIP, and NVRTC,
// which only test builds use (nvrtc.go). Their APIs are the same call for
// call, so one table holds either, as gpu_shim.h does for the drivers.
#ifndef QD_RTC_SHIM_H
#define QD_RTC_SHIM_H
#include "gpu_shim.h"

typedef int qd_rtc_result;

// QD_RTC_CALLS lists every call: its name in the table, its hiprtc and its
// NVRTC symbol, its result and its parameters (programs as void *).
#define QD_RTC_CALLS(X)                                                                                  \
	X(CreateProgram, "hiprtcCreateProgram", "nvrtcCreateProgram", qd_rtc_result,                     \
		(void **, const char *, const char *, int, const char *const *, const char *const *))    \
	X(CompileProgram, "hiprtcCompileProgram", "nvrtcCompileProgram", qd_rtc_result,                  \
		(void *, int, const char *const *))                                                      \
	X(GetProgramLogSize, "hiprtcGetProgramLogSize", "nvrtcGetProgramLogSize", qd_rtc_result,         \
		(void *, size_t *))                                                                      \
	X(GetProgramLog, "hiprtcGetProgramLog", "nvrtcGetProgramLog", qd_rtc_result, (void *, char *))   \
	X(GetCodeSize, "hiprtcGetCodeSize", "nvrtcGetCUBINSize", qd_rtc_result, (void *, size_t *))      \
	X(GetCode, "hiprtcGetCode", "nvrtcGetCUBIN", qd_rtc_result, (void *, char *))                    \
	X(DestroyProgram, "hiprtcDestroyProgram", "nvrtcDestroyProgram", qd_rtc_result, (void **))       \
	X(GetErrorString, "hiprtcGetErrorString", "nvrtcGetErrorString", const char *, (qd_rtc_result)) \
	X(Version, "hiprtcVersion", "nvrtcVersion", qd_rtc_result, (int *, int *))

#define QD_RTC_INDEX(field, hip, nv, result, params) QD_RTC_##field,
enum { QD_RTC_CALLS(QD_RTC_INDEX) QD_RTC_NUM_CALLS };
#undef QD_RTC_INDEX

#define QD_RTC_TYPE(field, hip, nv, result, params) typedef result(*qd_rtc_##field##_fn) params;
QD_RTC_CALLS(QD_RTC_TYPE)
#undef QD_RTC_TYPE

static const char *const qd_rtc_names[2][QD_RTC_NUM_CALLS] = {
#define QD_RTC_HIP(field, hip, nv, result, params) hip,
#define QD_RTC_NV(field, hip, nv, result, params) nv,
	{QD_RTC_CALLS(QD_RTC_HIP)},
	{QD_RTC_CALLS(QD_RTC_NV)},
#undef QD_RTC_HIP
#undef QD_RTC_NV
};

// qd_rtc is one runtime compiler, loaded.
struct qd_rtc {
	int nvrtc; // 0 for hiprtc, 1 for NVRTC
	void *lib;
	void *fn[QD_RTC_NUM_CALLS];
};

#define QD_RTC(c, field) ((qd_rtc_##field##_fn)(c)->fn[QD_RTC_##field])

static inline struct qd_rtc *qd_open_rtc(int nvrtc, const char *lib, const char **msg) {
	struct qd_rtc *c = calloc(1, sizeof *c);
	if (!c) {
		*msg = "out of memory";
		return NULL;
	}
	c->nvrtc = nvrtc;
	c->lib = qd_open_table(lib, qd_rtc_names[nvrtc], NULL, QD_RTC_NUM_CALLS, QD_RTC_NUM_CALLS, c->fn, msg);
	if (!c->lib) {
		free(c);
		return NULL;
	}
	return c;
}

static inline qd_rtc_result qd_rtc_version(const struct qd_rtc *c, int *major, int *minor) {
	return QD_RTC(c, Version)(major, minor);
}

static const char *qd_rtc_call_name(const struct qd_rtc *c, int call) { return qd_rtc_names[c->nvrtc][call]; }

static const char *qd_rtc_error(const struct qd_rtc *c, qd_rtc_result r) {
	const char *s = QD_RTC(c, GetErrorString)(r);
	return s ? s : "unknown error";
}

// qd_rtc_compile compiles source with the options into *code (malloc'd,
// *size bytes). The compiler's log, if any, is in *log (malloc'd); on
// failure *call is the call that failed.
static inline qd_rtc_result qd_rtc_compile(const struct qd_rtc *c, const char *source, const char *name,
		const char *const *options, int noptions, char **code, size_t *size, char **log, int *call) {
	void *prog = NULL;
	*code = NULL;
	*log = NULL;
	*call = QD_RTC_CreateProgram;
	qd_rtc_result r = QD_RTC(c, CreateProgram)(&prog, source, name, 0, NULL, NULL);
	if (r) return r;
	*call = QD_RTC_CompileProgram;
	qd_rtc_result compiled = QD_RTC(c, CompileProgram)(prog, noptions, options);
	size_t logSize = 0;
	if (QD_RTC(c, GetProgramLogSize)(prog, &logSize) == 0 && logSize > 1) {
		*log = calloc(1, logSize + 1);
		if (*log) QD_RTC(c, GetProgramLog)(prog, *log);
	}
	r = compiled;
	if (r == 0) {
		*call = QD_RTC_GetCodeSize;
		r = QD_RTC(c, GetCodeSize)(prog, size);
	}
	if (r == 0) {
		*call = QD_RTC_GetCode;
		*code = malloc(*size ? *size : 1);
		r = *code ? QD_RTC(c, GetCode)(prog, *code) : 1;
	}
	QD_RTC(c, DestroyProgram)(&prog);
	return r;
}

#endif
