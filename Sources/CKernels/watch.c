// A render's stop signal, seen from inside the C that does the work. libvips checks a kill flag on the
// image it is computing between tiles, and raises an "eval" signal there; one emission hook, installed
// once, sets that flag when the watch of the thread computing the image says stop. Our own JPEG decode
// asks the same watch from libjpeg's progress monitor. A thread-local is enough: libvips calls both
// from the thread that started the computation (a worker of ours), and a thread without a watch is
// never stopped.

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <vips/vips.h>
#include "CKernels.h"

struct mi_watch {
    double seconds, deadline;
    atomic_int cancelled;
};

static _Thread_local mi_watch *mi_current_watch;
static pthread_once_t mi_hook_once = PTHREAD_ONCE_INIT;

static double mi_monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

mi_watch *mi_watch_new(double seconds) {
    mi_watch *watch = calloc(1, sizeof(mi_watch));
    if (watch) watch->seconds = seconds;
    return watch;
}

void mi_watch_free(mi_watch *watch) { free(watch); }

void mi_watch_cancel(mi_watch *watch) { atomic_store(&watch->cancelled, 1); }

int mi_watch_state(const mi_watch *watch) {
    if (atomic_load((atomic_int *)&watch->cancelled)) return MI_WATCH_CANCELLED;
    if (watch->deadline > 0 && mi_monotonic_seconds() > watch->deadline) return MI_WATCH_EXPIRED;
    return MI_WATCH_RUNNING;
}

/// The "eval" signal's hook: its second value is the `VipsProgress` of the image being computed.
static gboolean mi_watch_eval_hook(GSignalInvocationHint *hint, guint count, const GValue *values, gpointer data) {
    (void)hint;
    (void)data;
    if (count >= 2 && mi_watch_stopped()) {
        VipsProgress *progress = g_value_get_pointer(&values[1]);
        if (progress && progress->im) vips_image_set_kill(progress->im, TRUE);
    }
    return TRUE;
}

static void mi_install_hook(void) {
    // A signal can be looked up only once its class exists, which no image may have made yet.
    g_type_class_ref(VIPS_TYPE_IMAGE);
    guint eval = g_signal_lookup("eval", VIPS_TYPE_IMAGE);
    if (eval) g_signal_add_emission_hook(eval, 0, mi_watch_eval_hook, NULL, NULL);
}

void mi_watch_begin(mi_watch *watch) {
    pthread_once(&mi_hook_once, mi_install_hook);
    if (watch && watch->seconds > 0) watch->deadline = mi_monotonic_seconds() + watch->seconds;
    mi_current_watch = watch;
}

void mi_watch_end(void) { mi_current_watch = NULL; }

int mi_watch_stopped(void) { return mi_current_watch ? mi_watch_state(mi_current_watch) : MI_WATCH_RUNNING; }

// Progress costs a timer per computation and a signal per tile: only work under a watch pays it.
void mi_watch_image(void *image) {
    if (mi_current_watch) vips_image_set_progress((VipsImage *)image, TRUE);
}
